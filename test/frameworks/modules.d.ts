// The two Express middlewares of the matrix ship no types; their @types packages would bring a
// second @types/node into this folder. As far as the matrix uses them:
declare module 'cors' {
  import type { RequestHandler } from 'express';
  export default function cors(options?: { origin?: string }): RequestHandler;
}
declare module 'compression' {
  import type { RequestHandler } from 'express';
  export default function compression(options?: { threshold?: number }): RequestHandler;
}
