/**
 * Reading the console's keys from ink's input events: a run of characters read together is one
 * key per character, in order; escape sequences and control keys are one key each.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Key } from "ink";
import { type ConsoleKey, keysOf } from "./console-keys.ts";

const plain: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};
const chars = (text: string): ConsoleKey[] => [...text].map((char) => ({ kind: "char", char }));
const named = (name: Extract<ConsoleKey, { kind: "named" }>["name"]): ConsoleKey => ({ kind: "named", name });

test("characters read together are one key each, in order", () => {
  assert.deepEqual(keysOf("345", plain), chars("345"));
  assert.deepEqual(keysOf("outcome:refused\r", plain), [...chars("outcome:refused"), named("enter")]);
  assert.deepEqual(keysOf("2\t\t/x\u007f", plain), [...chars("2"), named("tab"), named("tab"), ...chars("/x"), named("backspace")]);
  assert.deepEqual(keysOf("a\u0007b", plain), chars("ab"), "other control characters mean nothing");
});

test("one key per named key event", () => {
  assert.deepEqual(keysOf("\r", { ...plain, return: true }), [named("enter")]);
  assert.deepEqual(keysOf("", { ...plain, escape: true }), [named("escape")]);
  assert.deepEqual(keysOf("", { ...plain, tab: true }), [named("tab")]);
  assert.deepEqual(keysOf("", { ...plain, tab: true, shift: true }), [named("back-tab")]);
  assert.deepEqual(keysOf("", { ...plain, delete: true }), [named("backspace")]);
  assert.deepEqual(keysOf("", { ...plain, pageDown: true }), [named("page-down")]);
  assert.deepEqual(keysOf("", { ...plain, home: true }), [named("home")]);
  assert.deepEqual(keysOf("Q", { ...plain, shift: true }), chars("Q"));
});

test("Ctrl and Alt combinations are bound to nothing", () => {
  assert.deepEqual(keysOf("q", { ...plain, meta: true }), []);
  assert.deepEqual(keysOf("a", { ...plain, ctrl: true }), []);
});
