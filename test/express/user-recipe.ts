/**
 * The recipe for Express in `docs/embedding.md`: the app's own middleware decides who the
 * caller is (`req.user`, as passport or a session middleware sets it), and the store's verifier
 * trusts its verdict. The page shows this file as it is (below this comment);
 * `test/readme.test.ts` checks both, and `user-recipe.test.ts` runs it.
 *
 * @module
 */

import express from 'express';
import { createPlantStore, type TokenVerifier } from 'plant-store';
import { createRouter } from 'plant-store/express';

type User = { name: string };
const sessions = new Map<string, User>([['t0ken-of-ann', { name: 'ann' }]]);
export const app = express();
// The host's middleware: req.user from the bearer token (passport, a session, a JWT check).
app.use((req: express.Request & { user?: User | undefined }, _res, next) => {
  const token = /^Bearer +(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
  req.user = token === undefined ? undefined : sessions.get(token);
  next();
});
export const verifier: TokenVerifier<User> = {
  verify: (_token, { host }) => {
    const user = (host as { user?: User | undefined } | undefined)?.user;
    return user === undefined ? { valid: false } : { valid: true, principal: user };
  },
};
app.use('/api', createRouter(createPlantStore({ verifier })));
