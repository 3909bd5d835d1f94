// glTF-Transform's property graph dispatches an event on every change of every property (a name, an array, an
// edge), twice: on the property and on the graph, each a fresh object with a spread and a prefixed type. Nothing
// listens to most of them: glTF-Transform itself listens only, on the graph, for properties created and disposed.
// At 100,000 parts that dispatch was a fifth of a conversion's processor time and a large share of its garbage, so
// an event is built only for the side that listens for it, with the same fields and type as before, and one no one
// listens for is not built at all.
import { EventDispatcher, GraphNode } from 'property-graph';

/** What the patched dispatch reads of a graph node: its own listeners and its graph's. */
interface Listened {
  _listeners: Record<string, unknown[] | undefined>;
  graph: { _listeners: Record<string, unknown[] | undefined>; dispatchEvent(event: object): unknown };
}

const dispatch = GraphNode.prototype.dispatchEvent;
const dispatchOwn = EventDispatcher.prototype.dispatchEvent;

/** Each event type as the graph hears it (`node:<type>`), made once: a new string each time cost a lookup. */
const graphTypes = new Map<string, string>();

function graphType(type: string): string {
  let prefixed = graphTypes.get(type);
  if (prefixed === undefined) graphTypes.set(type, (prefixed = `node:${type}`));
  return prefixed;
}

/**
 * Who listens for an event of `type`: `node` itself, and its graph (as `node:<type>`); undefined for a graph laid
 * out otherwise (a later version), which is not second-guessed.
 */
function listeners(node: GraphNode, type: string): { here: boolean; onGraph: boolean } | undefined {
  const { _listeners: own, graph } = node as unknown as Partial<Listened>;
  if (!own || !graph?._listeners) return undefined;
  return { here: Boolean(own[type]?.length), onGraph: Boolean(graph._listeners[graphType(type)]?.length) };
}

/** Whether anyone listens for an event of `type` on `node` or, prefixed `node:`, on its graph. */
export function hasListeners(node: GraphNode, type: string): boolean {
  const heard = listeners(node, type);
  return !heard || heard.here || heard.onGraph;
}

/**
 * `event` with `target` and `type` set, as the library's `{ ...event, target, type }` makes it of its own events
 * (their own string keys): copied key by key, since a spread of events of a few shapes ran V8's slow path, about a
 * microsecond an event, and a graph-wide listener hears every property created (600,000 events at 100,000 parts).
 */
function eventFor(event: object, target: GraphNode, type: string): object {
  const heard: Record<string, unknown> = { type, target };
  // Over `for…in`, not `Object.keys`: an array a call took back what the spread cost. The library's events are
  // plain objects, so what `for…in` also walks (a prototype's enumerable keys) is never there.
  for (const key in event)
    if (key !== 'type' && key !== 'target') heard[key] = (event as Record<string, unknown>)[key];
  return heard;
}

GraphNode.prototype.dispatchEvent = function dispatchHeardEvent(this: GraphNode, event) {
  const heard = listeners(this, event.type);
  // Both sides, as the library sends them; else only the side that listens, with the event it would have had.
  if (!heard || (heard.here && heard.onGraph)) return dispatch.call(this, event);
  if (heard.here) dispatchOwn.call(this, eventFor(event, this, event.type));
  else if (heard.onGraph)
    (this as unknown as Listened).graph.dispatchEvent(eventFor(event, this, graphType(event.type)));
  return this;
};
