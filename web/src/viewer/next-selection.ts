/** The part selection after a pick: a plain pick selects only that part (or nothing), an additive one toggles it. */
export function nextSelection(
  current: ReadonlySet<string>,
  groupId: string | null,
  additive: boolean,
): Set<string> {
  const next = new Set(additive ? current : []);
  if (groupId !== null) {
    if (additive && next.has(groupId)) next.delete(groupId);
    else next.add(groupId);
  }
  return next;
}
