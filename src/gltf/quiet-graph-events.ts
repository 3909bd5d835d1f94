// glTF-Transform's property graph dispatches an event on every change of every property (a name, an array, an
// edge), twice: on the property and on the graph, each a fresh object with a spread and a prefixed type. Nothing
// listens to most of them: glTF-Transform itself listens only for properties created and disposed. At 100,000
// parts that dispatch was a fifth of a conversion's processor time and a large share of its garbage, so an event
// no one listens for is not built at all. Events someone listens for go out exactly as before.
import { GraphNode } from 'property-graph';

/** What the patched dispatch reads of a graph node: its own listeners and its graph's. */
interface Listened {
  _listeners: Record<string, unknown[] | undefined>;
  graph: { _listeners: Record<string, unknown[] | undefined> };
}

const dispatch = GraphNode.prototype.dispatchEvent;

/** Whether anyone listens for an event of `type` on `node` or, prefixed `node:`, on its graph. */
export function hasListeners(node: GraphNode, type: string): boolean {
  const { _listeners: own, graph } = node as unknown as Partial<Listened>;
  // A graph laid out otherwise (a later version) is not second-guessed: every event goes out.
  if (!own || !graph?._listeners) return true;
  return Boolean(own[type]?.length || graph._listeners[`node:${type}`]?.length);
}

GraphNode.prototype.dispatchEvent = function dispatchHeardEvent(this: GraphNode, event) {
  return hasListeners(this, event.type) ? dispatch.call(this, event) : this;
};
