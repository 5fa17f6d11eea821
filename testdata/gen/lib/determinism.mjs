// Makes pi's SessionManager deterministic: a fake wall clock (global Date) and a seeded
// PRNG behind crypto.randomUUID (entry ids) and crypto.getRandomValues (UUIDv7 session ids).
// MUST be imported before session-manager.js is loaded (see loadPi()).
import nodeCrypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";

const RealDate = Date;

// mulberry32
function makeRng(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export const clock = {
	now: RealDate.parse("2026-09-14T09:12:03.117Z"),
	set(iso) {
		this.now = RealDate.parse(iso);
		if (Number.isNaN(this.now)) throw new Error(`bad clock value ${iso}`);
	},
	tick(ms) {
		this.now += Math.round(ms);
	},
	iso() {
		return new RealDate(this.now).toISOString();
	},
};

let rng = makeRng(0x5eed);
export function reseed(seed) {
	rng = makeRng(seed);
}
export function rand() {
	return rng();
}
export function randInt(min, max) {
	return Math.floor(min + rng() * (max - min + 1));
}
export function randomBytes(n) {
	const out = new Uint8Array(n);
	for (let i = 0; i < n; i++) out[i] = Math.floor(rng() * 256);
	return out;
}
export function randomChars(n, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") {
	let s = "";
	for (let i = 0; i < n; i++) s += alphabet[Math.floor(rng() * alphabet.length)];
	return s;
}

function fakeRandomUUID() {
	const b = randomBytes(16);
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

let installed = false;
export function installDeterminism() {
	if (installed) return;
	installed = true;
	class FakeDate extends RealDate {
		constructor(...args) {
			if (args.length === 0) super(clock.now);
			else super(...args);
		}
		static now() {
			return clock.now;
		}
	}
	globalThis.Date = FakeDate;
	nodeCrypto.randomUUID = fakeRandomUUID;
	syncBuiltinESMExports();
	globalThis.crypto.getRandomValues = (arr) => {
		const b = randomBytes(arr.byteLength);
		new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength).set(b);
		return arr;
	};
}

export async function loadPi() {
	const url = new URL("../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js", import.meta.url);
	return import(url.href);
}
