import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createReceiverSlots } from '../../src/webhooks/receiver-slots.ts';

void describe('createReceiverSlots', () => {
  void it('gives each receiver its own few slots and frees each once', () => {
    const slots = createReceiverSlots(2, 10_000);
    const first = slots.take('http://a.example');
    const second = slots.take('http://a.example');
    assert.ok(first && second);
    assert.equal(slots.take('http://a.example'), undefined, 'a third attempt to the same receiver waits');
    assert.ok(slots.take('http://b.example'), 'another receiver is not affected');
    first();
    first();
    assert.ok(slots.take('http://a.example'), 'a freed slot is taken again');
    assert.equal(slots.take('http://a.example'), undefined, 'freeing twice frees one slot');
  });

  void it('puts off about as long as the receiver last took, within bounds', async () => {
    const slots = createReceiverSlots(1, 400);
    const untried = slots.deferMs('http://new.example');
    assert.ok(untried >= 250 && untried <= 400, `${untried}`);
    const free = slots.take('http://quick.example')!;
    free();
    assert.equal(slots.deferMs('http://quick.example'), 250, 'never shorter than the floor');
    const slow = slots.take('http://slow.example')!;
    await new Promise((resolve) => setTimeout(resolve, 300));
    slow();
    const deferral = slots.deferMs('http://slow.example');
    assert.ok(deferral >= 300 && deferral <= 400, `${deferral}: its last attempt's time, capped`);
  });

  void it('puts off longer while an attempt in flight has been waiting longer than the last one took', async () => {
    const slots = createReceiverSlots(1, 5_000);
    slots.take('http://hanging.example')!();
    assert.equal(slots.deferMs('http://hanging.example'), 250);
    slots.take('http://hanging.example');
    await new Promise((resolve) => setTimeout(resolve, 600));
    const deferral = slots.deferMs('http://hanging.example');
    assert.ok(deferral >= 600 && deferral <= 1_000, `${deferral}: at least as long as it has been waiting`);
  });
});
