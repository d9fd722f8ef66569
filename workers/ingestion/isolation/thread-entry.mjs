// The file each extraction thread starts from. Plain JavaScript on purpose: worker threads do
// not get the parent's tsx module hooks on Node 20 (the parent's `--import tsx` covers only
// `require`, which cannot load these ES modules), so the thread registers tsx itself before it
// imports the TypeScript tasks. This holds however the process was started from source (npm
// scripts, `npm start`, mocha's node-option). The compiled build (dist/, the Docker image) does
// not use this file: its threads load the bundled tasks directly (see thread-pool.ts).
import { register } from "tsx/esm/api";

register();
const tasks = await import("./thread-tasks.ts");

export const extract = tasks.extract;
export const chunk = tasks.chunk;
export const splitImport = tasks.splitImport;
export const ping = tasks.ping;
export const warm = tasks.warm;
