export * from './errors.js';
export * from './message.js';
export * from './nonce.js';
export * from './schemas.js';
