/**
 * A Redocly plugin: `x-person-paths` (the person's own operations, ARCHITECTURE.md "One road
 * for every write") is read as a Paths Object, so `make lint` checks those operations by every
 * rule the served ones meet, and counts the components they use.
 */
module.exports = function personPaths() {
  return {
    id: 'person-paths',
    typeExtension: {
      oas3(types) {
        return { ...types, Root: { ...types.Root, properties: { ...types.Root.properties, 'x-person-paths': 'Paths' } } };
      },
    },
  };
};
