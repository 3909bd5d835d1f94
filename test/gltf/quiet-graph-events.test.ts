// The property graph's events: those nobody listens for are skipped, those somebody listens for still arrive, on
// the property and on the graph, and glTF-Transform's own bookkeeping (the root's lists, an extension's properties)
// is what it was.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Document } from '@gltf-transform/core';
import { EXTMeshGPUInstancing } from '@gltf-transform/extensions';
import { hasListeners } from '../../src/gltf/quiet-graph-events.ts';

void test('an event nobody listens for is not dispatched', () => {
  const document = new Document();
  const node = document.createNode('a');
  assert.equal(hasListeners(node, 'change'), false);
  const graph = document.getGraph();
  const sent: string[] = [];
  const send = graph.dispatchEvent.bind(graph);
  graph.dispatchEvent = (event) => {
    sent.push(event.type);
    return send(event);
  };
  node.setName('b');
  assert.deepEqual(sent, []);
  // glTF-Transform listens on the graph for properties created, and each extension for properties disposed.
  document.createMesh('m');
  assert.deepEqual(sent, ['node:create']);
  assert.equal(hasListeners(node, 'dispose'), false);
  document.createExtension(EXTMeshGPUInstancing);
  assert.equal(hasListeners(node, 'dispose'), true);
});

void test('listeners on a property and on its graph receive its events as before', () => {
  const document = new Document();
  const node = document.createNode('a');
  const own: string[] = [];
  const graphWide: string[] = [];
  node.addEventListener('change', (event) => own.push(`${event.type}:${String(event.attribute)}`));
  document.getGraph().addEventListener('node:change', (event) => {
    graphWide.push(`${event.type}:${String(event.attribute)}`);
  });
  assert.equal(hasListeners(node, 'change'), true);
  node.setName('b');
  node.setTranslation([1, 2, 3]);
  assert.deepEqual(own, ['change:name', 'change:translation']);
  assert.deepEqual(graphWide, ['node:change:name', 'node:change:translation']);
});

void test('a graph-wide listener hears changes of every property, however they are made', () => {
  const document = new Document();
  const heard: unknown[] = [];
  document.getGraph().addEventListener('node:change', (event) => heard.push(event.target));
  const mesh = document.createMesh('m');
  const node = document.createNode('n').setMesh(mesh);
  assert.ok(heard.includes(node));
});

void test('the root lists what is created and forgets what is disposed', () => {
  const document = new Document();
  const root = document.getRoot();
  const accessor = document
    .createAccessor('a')
    .setArray(new Float32Array([1, 2, 3]))
    .setType('VEC3');
  const node = document.createNode('n');
  document.createScene('s').addChild(node);
  assert.deepEqual(root.listAccessors(), [accessor]);
  assert.deepEqual(root.listNodes(), [node]);
  node.dispose();
  accessor.dispose();
  assert.deepEqual(root.listNodes(), []);
  assert.deepEqual(root.listAccessors(), []);
  assert.deepEqual(root.listScenes()[0]!.listChildren(), []);
});

void test('an extension still keeps count of its properties', () => {
  const document = new Document();
  const instancing = document.createExtension(EXTMeshGPUInstancing);
  const batch = instancing.createInstancedMesh();
  assert.deepEqual(instancing.listProperties(), [batch]);
  batch.dispose();
  assert.deepEqual(instancing.listProperties(), []);
});

void test('a side that listens alone receives the event it would have had, and the other side sends nothing', () => {
  const document = new Document();
  const graph = document.getGraph();
  const node = document.createNode('a');
  const sentOnGraph: string[] = [];
  const send = graph.dispatchEvent.bind(graph);
  graph.dispatchEvent = (event) => {
    sentOnGraph.push(event.type);
    return send(event);
  };
  const own: unknown[] = [];
  node.addEventListener('change', (event) => own.push({ ...event }));
  node.setName('b');
  assert.deepEqual(own, [{ type: 'change', attribute: 'name', target: node }]);
  assert.deepEqual(sentOnGraph, []);
  const other = document.createNode('c');
  const onGraph: unknown[] = [];
  graph.addEventListener('node:change', (event) => onGraph.push({ ...event }));
  other.setName('d');
  assert.deepEqual(onGraph, [{ type: 'node:change', attribute: 'name', target: other }]);
  assert.equal(own.length, 1);
});
