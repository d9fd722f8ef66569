import { type Catalog, en } from "./en";

export const it: Catalog = { ...en };
