/**
 * A self-signed certificate for 127.0.0.1, made by the machine's `openssl` at test time (node's
 * crypto makes keys, not certificates), for the tests that need TLS; they skip, saying why,
 * when `openssl` is missing.
 *
 * @module
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why TLS tests cannot run here, or `false` when `openssl` is at hand. */
export function noOpenssl(): string | false {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'no openssl to make a self-signed certificate: install openssl to run this test';
  }
}

/** A key and a self-signed certificate for 127.0.0.1, valid for a day; `cert` is its own CA. */
export function selfSigned(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-tls-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(key), cert: readFileSync(cert) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
