import { type Catalog, en } from "./en";

export const pt: Catalog = { ...en };
