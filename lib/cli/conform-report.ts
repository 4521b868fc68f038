/**
 * How `plant-store conform` writes its results: TAP 14 lines as each check ends, a summary, and
 * JUnit XML for CI systems that read it.
 *
 * @module
 */

import type { CheckResult } from '../testing.ts';

export function tapResult(number: number, result: CheckResult): string {
  const name = result.name.replaceAll('#', '\\#');
  if (result.skipped !== undefined) {
    return `ok ${number} - ${name} # SKIP ${result.skipped.replaceAll('#', '\\#')}\n`;
  }
  if (result.error === undefined) return `ok ${number} - ${name}\n`;
  return `not ok ${number} - ${name}\n  ---\n  message: ${yamlString(result.error.message)}\n  ...\n`;
}

function yamlString(text: string): string {
  // A single-quoted YAML scalar holds no control character, so those take JSON's form.
  // oxlint-disable-next-line no-control-regex
  return /^[^\u0000-\u001f\u007f]*$/.test(text)
    ? `'${text.replaceAll("'", "''")}'`
    : JSON.stringify(text);
}

export function tapSummary(results: readonly CheckResult[]): string {
  const failed = results.filter((result) => result.error !== undefined);
  const skipped = results.filter((result) => result.skipped !== undefined).length;
  const passed = results.length - failed.length - skipped;
  const lines = [
    `# ${passed} passed, ${failed.length} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`,
  ];
  for (const { error } of failed) lines.push(`# FAIL ${error?.message.split('\n')[0] ?? ''}`);
  return `${lines.join('\n')}\n`;
}

/** One `testcase` per check, its rule as the class name. */
export function junitXml(results: readonly CheckResult[], durationMs: number): string {
  const failures = results.filter((result) => result.error !== undefined).length;
  const skips = results.filter((result) => result.skipped !== undefined).length;
  const cases = results.map(({ name, error, skipped }) => {
    const rule = name.split(': ')[0] ?? name;
    const open = `    <testcase classname="${xml(rule)}" name="${xml(name)}"`;
    if (skipped !== undefined)
      return `${open}>\n      <skipped message="${xml(skipped)}"/>\n    </testcase>`;
    if (error === undefined) return `${open}/>`;
    return `${open}>\n      <failure message="${xml(error.message)}" type="${xml(error.name)}">${xml(error.message)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${results.length}" failures="${failures}" time="${(durationMs / 1000).toFixed(3)}">`,
    `  <testsuite name="plant-store conform" tests="${results.length}" failures="${failures}" errors="0" skipped="${skips}" time="${(durationMs / 1000).toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** Characters XML 1.0 cannot hold become U+FFFD. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}
