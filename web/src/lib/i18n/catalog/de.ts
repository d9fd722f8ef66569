import { type Catalog, en } from "./en";

export const de: Catalog = { ...en };
