/** SCIM 2.0 provisioning at `/scim/v2` (per organisation, by its token) and the admin's settings for it. */
import { scimAdminRoutes } from "./admin";
import { scimDiscoveryRoutes } from "./discovery";
import { scimGroupRoutes } from "./groups";
import { scimUserRoutes } from "./users";

export const scimRoutes = [...scimAdminRoutes, ...scimDiscoveryRoutes, ...scimUserRoutes, ...scimGroupRoutes];
