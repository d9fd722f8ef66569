import { type Catalog, en } from "./en";

export const es: Catalog = { ...en };
