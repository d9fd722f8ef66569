/**
 * The SCIM library (scimmy), configured once per process: the resource types we serve (Users with
 * the enterprise extension, Groups), what the service provider supports (PATCH and filters; no
 * bulk, sort, ETags or password changes) and the base path the discovery documents name. Its
 * parsers (filters, attribute lists), schema coercion and PatchOp are used by the other modules
 * here; its resource handlers are not, because they keep state per class (one org would leak into
 * the next request) and turn any storage error into a 404.
 */
import SCIMMY from "scimmy";

export const SCIM_BASE_PATH = "/scim/v2";
/** A page is at most this many resources, whatever `count` asks for. */
export const SCIM_MAX_RESULTS = 200;
export const ENTERPRISE_USER = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

SCIMMY.Config.set({
  patch: true,
  filter: SCIM_MAX_RESULTS,
  authenticationSchemes: [
    {
      type: "oauthbearertoken",
      name: "SCIM bearer token",
      description: "The organisation's SCIM token from the admin console (Provisioning): Authorization: Bearer <token>.",
    },
  ],
});
SCIMMY.Resources.declare(SCIMMY.Resources.User.extend(SCIMMY.Schemas.EnterpriseUser, false));
SCIMMY.Resources.declare(SCIMMY.Resources.Group);
for (const resource of [SCIMMY.Resources.ServiceProviderConfig, SCIMMY.Resources.ResourceType, SCIMMY.Resources.Schema]) resource.basepath(SCIM_BASE_PATH);

export { SCIMMY };
