export * from './elements.js';
export * from './nodes.js';
export * from './secrecy.js';
export * from './mentions.js';
