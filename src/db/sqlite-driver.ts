import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

// better-sqlite3 for the Node.js this process runs on. Version 12 wraps its objects in Node's own
// ObjectWrap, which from Node 24.19 aborts the process (SIGABRT, "Assertion failed: (env) !=
// nullptr") when a statement is garbage-collected outside JavaScript, at exit or in an idle GC.
// Version 13 is a Node-API addon without that fault, but needs Node 22 or later (it crashes on
// Node 20). So both are installed (13 under the alias better-sqlite3-napi, with prebuilt binaries;
// 12 compiled at install) and the one that fits is loaded; their APIs are the same.
const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

export const sqliteDriverPackage = nodeMajor >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

export const SQLite = require(sqliteDriverPackage) as typeof BetterSqlite3;
export type SQLiteDatabase = BetterSqlite3.Database;
export type SQLiteStatement = BetterSqlite3.Statement;
