// What the demo store lists of its own, before any upstream's items: the lists the demo tests pin, written once.

/** The demo store's resources, in listing order: its catalog, the order form app, and its skills (index, SKILL.md files). */
export const STORE_RESOURCE_URIS: readonly string[] = [
  'store://catalog',
  'ui://demo-store/order-form',
  'skill://index.json', // the demo's skills (demo/skills/, mcp.skills): the discovery index, each SKILL.md
  'skill://order-handling/SKILL.md',
  'skill://restocking/SKILL.md',
];
