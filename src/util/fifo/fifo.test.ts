import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Fifo } from './index.js';

test('Fifo hands items out in the order pushed, across compactions', () => {
  const q = new Fifo<number>();
  assert.equal(q.shift(), undefined);
  let next = 0;
  let expected = 0;
  // Interleave pushes and shifts so the read index passes the compaction threshold many times.
  for (let round = 0; round < 50; round++) {
    for (let i = 0; i < 3000; i++) q.push(next++);
    for (let i = 0; i < 2000; i++) assert.equal(q.shift(), expected++);
    assert.equal(q.length, next - expected);
  }
  while (q.length > 0) assert.equal(q.shift(), expected++);
  assert.equal(expected, next);
  assert.equal(q.shift(), undefined);
});

test('Fifo.clear empties the queue', () => {
  const q = new Fifo<string>();
  q.push('a');
  q.push('b');
  q.clear();
  assert.equal(q.length, 0);
  assert.equal(q.shift(), undefined);
  q.push('c');
  assert.equal(q.shift(), 'c');
});

test('Fifo.peek shows the head without removing it', () => {
  const q = new Fifo<string>();
  assert.equal(q.peek(), undefined);
  q.push('a');
  q.push('b');
  assert.equal(q.peek(), 'a');
  assert.equal(q.length, 2);
  q.shift();
  assert.equal(q.peek(), 'b');
  q.shift();
  assert.equal(q.peek(), undefined);
});
