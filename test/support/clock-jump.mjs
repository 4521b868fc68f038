// Preloaded (`node --import`) into a CLI child: on SIGUSR2, Date.now() moves to the real time
// plus the milliseconds written in the file TEST_CLOCK_FILE, so a test can age the JWKS keys by
// hours in a moment. `new Date()` (and so jose's exp and nbf checks) keeps the real time.
import { readFileSync } from 'node:fs';

const realNow = Date.now;
let offset = 0;
Date.now = () => realNow() + offset;
process.on('SIGUSR2', () => {
  offset = Number(readFileSync(process.env.TEST_CLOCK_FILE ?? '', 'utf8'));
});
