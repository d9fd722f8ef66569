/** The documents row the vector-index tests give their chunks (org-vector-indexes, vector-tail). */
export function vectorTestDocument(orgId: string, centre: number, seed: number, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    org_id: orgId,
    title: `doc ${centre}/${seed}`,
    filename: "x.txt",
    mime_type: "text/plain",
    size_bytes: 1,
    content_hash: `h-${orgId}-${seed}`,
    ...fields,
  };
}
