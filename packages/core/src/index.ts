export * from './errors.js';
export * from './event-schemas.js';
export * from './message.js';
export * from './schemas.js';
export * from './service-key.schemas.js';
export * from './service-vocabulary.js';
export * from './sign-in-message.js';
