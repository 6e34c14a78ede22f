// ISO 8583 dictionaries and helpers (see ../../docs/switch.md).
export * from './amount.js';
export * from './codes.js';
export * from './fields.js';
export * from './message.js';
