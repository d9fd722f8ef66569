import { type Catalog, en } from "./en";

export const fr: Catalog = { ...en };
