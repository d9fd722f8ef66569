/** Signing in, the signed-in caller, the course catalogue, health and the document itself. */
import { devLoginBody } from "../../routes/auth";
import { defineRoutes } from "../registry";
import { coursesResponse, demoUsersResponse, devLoginResponse, healthResponse, meResponse, readyResponse } from "../responses";

export const sessionRoutes = defineRoutes([
  {
    method: "post",
    path: "/api/v1/auth/dev-login",
    tag: "auth",
    summary: "Trade a seeded user's email for a token (development only)",
    description: "Exists only while DEV_LOGIN_ENABLED is on (404 otherwise); rate limited per client IP.",
    access: "public",
    body: devLoginBody,
    rateLimited: true,
    responses: { 200: { description: "A token and the user it signs in.", schema: devLoginResponse } },
    errors: ["UNAUTHORIZED", "NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/v1/auth/demo-users",
    tag: "auth",
    summary: "Active users for a sign-in picker (development only)",
    description: "Admins first, at most 100. Exists only while DEV_LOGIN_ENABLED is on (404 otherwise).",
    access: "public",
    responses: { 200: { description: "The users.", schema: demoUsersResponse } },
    errors: ["NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/v1/me",
    tag: "caller",
    summary: "Who the caller is, which model answers, whether they may open Bull Board",
    access: "bearer",
    responses: { 200: { description: "The caller.", schema: meResponse } },
  },
  {
    method: "get",
    path: "/api/v1/learning/courses",
    tag: "caller",
    summary: "Courses the caller may use as tutor context, with their lessons",
    description: "Employees: enrolled and not archived; admins: every course of their organisation. Exactly what POST /api/v1/chat accepts.",
    access: "bearer",
    responses: { 200: { description: "The courses, by title.", schema: coursesResponse } },
  },
  {
    method: "get",
    path: "/api/v1/openapi.json",
    tag: "meta",
    summary: "This document (OpenAPI 3.1), generated from the routes' zod schemas",
    access: "public",
    responses: { 200: { description: "The OpenAPI document." } },
  },
  {
    method: "get",
    path: "/healthz",
    tag: "ops",
    summary: "Liveness: the process answers",
    access: "public",
    responses: { 200: { description: "Alive.", schema: healthResponse } },
  },
  {
    method: "get",
    path: "/readyz",
    tag: "ops",
    summary: "Readiness: Redis and Postgres answer (2 s timeout each)",
    access: "public",
    responses: {
      200: { description: "Ready.", schema: readyResponse },
      503: { description: "Not ready; the reason is logged, and returned as `details` with the METRICS_TOKEN.", schema: readyResponse },
    },
  },
]);
