/**
 * How `plant-store conform` writes its results: TAP lines as each check ends, a short summary,
 * and JUnit XML for CI systems that read it.
 *
 * @module
 */

import type { CheckResult } from '../testing.ts';

/**
 * One check's result as TAP 14: `ok N - name`, `ok N - name # SKIP reason`, or `not ok N - name`
 * with the message in a YAML block.
 *
 * @param number The check's number, from 1.
 * @param result The result.
 * @returns The lines, ending with a newline.
 */
export function tapResult(number: number, result: CheckResult): string {
  const name = result.name.replaceAll('#', '\\#');
  if (result.skipped !== undefined) {
    return `ok ${number} - ${name} # SKIP ${result.skipped.replaceAll('#', '\\#')}\n`;
  }
  if (result.error === undefined) return `ok ${number} - ${name}\n`;
  return `not ok ${number} - ${name}\n  ---\n  message: ${yamlString(result.error.message)}\n  ...\n`;
}

/** A string as a YAML scalar: single-quoted when it is one printable line, else JSON's form. */
function yamlString(text: string): string {
  // A single-quoted YAML scalar holds no control character: matching them is the point.
  // oxlint-disable-next-line no-control-regex
  return /^[^\u0000-\u001f\u007f]*$/.test(text)
    ? `'${text.replaceAll("'", "''")}'`
    : JSON.stringify(text);
}

/**
 * The summary after the plan: the counts, and the rules that broke.
 *
 * @param results Every result, in order.
 * @returns The comment lines.
 */
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

/**
 * The results as a JUnit XML document: one `testsuite`, one `testcase` per check (its rule as
 * the class name), a `failure` with the message for each that failed, a `skipped` with the
 * reason for each that was skipped.
 *
 * @param results Every result, in order.
 * @param durationMs How long the run took.
 * @returns The document.
 */
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

/** Text as XML character data or an attribute value; characters XML 1.0 cannot hold become U+FFFD. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}
