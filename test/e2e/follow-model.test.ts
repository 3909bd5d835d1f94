// How the viewer follows a conversion, with the model's reads and its event stream played by the test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventHandlers, ServerEvent } from '../../web/src/api/events.ts';
import type { Model } from '../../web/src/api/types.ts';
import { followModel } from '../../web/src/pages/follow-model.ts';

type Status = Model['status'];

/** A model as the API would answer, with only what following looks at set. */
function modelWith(status: Status): Model {
  return { id: 'm1', name: 'truck', status, progress: status === 'pending' ? 0 : 100, error: null } as Model;
}

function eventOf(type: 'model.progress' | 'model.failed', status: Status): ServerEvent {
  return {
    id: 1,
    type,
    created_at: '2026-11-26T00:00:00.000Z',
    data: { model_id: 'm1', name: 'truck', status, progress: 0, error: null },
  };
}

/** Reads the test answers one by one, and a stream it drives by hand. */
function playedSources() {
  const reads: { resolve: (model: Model) => void }[] = [];
  let handlers: EventHandlers | undefined;
  let closed = false;
  return {
    reads,
    open: () => handlers!.onOpen?.(),
    send: (event: ServerEvent) => handlers!.onEvent(event),
    closed: () => closed,
    sources: {
      getModel: () => new Promise<Model>((resolve) => reads.push({ resolve })),
      subscribeEvents: (_filter: { modelId?: string }, given: EventHandlers) => {
        handlers = given;
        return () => void (closed = true);
      },
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const unexpected = (error: unknown) => assert.fail(`no read should fail: ${String(error)}`);

void test('a failure announced while the first read is on its way is read again, not lost', async () => {
  const played = playedSources();
  const seen: Status[] = [];
  followModel('m1', (model) => seen.push(model.status), unexpected, played.sources);
  played.open();
  assert.equal(played.reads.length, 1, 'the stream opening reads the model');
  // The conversion fails in milliseconds: its event arrives before the read made before it answers.
  played.send(eventOf('model.failed', 'failed'));
  played.reads[0]!.resolve(modelWith('processing'));
  await settle();
  assert.equal(played.reads.length, 2, 'read again after the answer that predates the event');
  played.reads[1]!.resolve(modelWith('failed'));
  await settle();
  assert.deepEqual(seen, ['processing', 'failed']);
  assert.ok(played.closed(), 'the stream is closed once the model settled');
});

void test('progress events update the model without a read once the first read has answered', async () => {
  const played = playedSources();
  const seen: Status[] = [];
  followModel('m1', (model) => seen.push(model.status), unexpected, played.sources);
  played.open();
  played.reads[0]!.resolve(modelWith('pending'));
  await settle();
  played.send(eventOf('model.progress', 'processing'));
  assert.equal(played.reads.length, 1);
  played.send(eventOf('model.failed', 'failed'));
  assert.equal(played.reads.length, 2, 'a settling event reads the model for its final state');
  played.reads[1]!.resolve(modelWith('failed'));
  await settle();
  assert.deepEqual(seen, ['pending', 'processing', 'failed']);
  assert.ok(played.closed());
});
