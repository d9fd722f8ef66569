/** esbuild bundles imported CSS into the page stylesheet. */
declare module "*.css";
