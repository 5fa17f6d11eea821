// Makes oh-my-pi's SessionManager deterministic under Bun: a fake wall clock (global Date), a seeded
// PRNG behind crypto.randomUUID (entry ids are its last 8 hex chars, artifact temp names) and
// crypto.getRandomValues, and a UUIDv7 built from the fake clock + PRNG behind Bun.randomUUIDv7
// (omp's session ids, session-manager.ts mintSessionId()).
// MUST run before any @oh-my-pi module is imported (import it first, then import omp dynamically).
const RealDate = Date;

// mulberry32 (same PRNG as testdata/gen/lib/determinism.mjs)
function makeRng(seed: number): () => number {
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
	now: RealDate.parse("2026-10-05T08:00:00.000Z"),
	set(iso: string) {
		this.now = RealDate.parse(iso);
		if (Number.isNaN(this.now)) throw new Error(`bad clock value ${iso}`);
	},
	tick(ms: number) {
		this.now += Math.round(ms);
	},
	iso() {
		return new RealDate(this.now).toISOString();
	},
};

let rng = makeRng(0x0e1e9a);
export function reseed(seed: number) {
	rng = makeRng(seed);
}
export function rand(): number {
	return rng();
}
export function randInt(min: number, max: number): number {
	return Math.floor(min + rng() * (max - min + 1));
}
export function randomBytes(n: number): Uint8Array {
	const out = new Uint8Array(n);
	for (let i = 0; i < n; i++) out[i] = Math.floor(rng() * 256);
	return out;
}
export function randomChars(n: number, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"): string {
	let s = "";
	for (let i = 0; i < n; i++) s += alphabet[Math.floor(rng() * alphabet.length)];
	return s;
}
const hex = (b: Uint8Array) => Array.from(b, x => x.toString(16).padStart(2, "0")).join("");
const dashed = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;

function fakeRandomUUID(): string {
	const b = randomBytes(16);
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	return dashed(hex(b));
}

function fakeUUIDv7(): string {
	const b = randomBytes(16);
	let ms = clock.now;
	for (let i = 5; i >= 0; i--) {
		b[i] = ms % 256;
		ms = Math.floor(ms / 256);
	}
	b[6] = (b[6] & 0x0f) | 0x70;
	b[8] = (b[8] & 0x3f) | 0x80;
	return dashed(hex(b));
}

let installed = false;
export function installDeterminism(): void {
	if (installed) return;
	installed = true;
	class FakeDate extends RealDate {
		constructor(...args: unknown[]) {
			if (args.length === 0) super(clock.now);
			else super(...(args as [string | number]));
		}
		static now() {
			return clock.now;
		}
	}
	(globalThis as { Date: DateConstructor }).Date = FakeDate as DateConstructor;
	(globalThis.crypto as { randomUUID: () => string }).randomUUID = fakeRandomUUID;
	globalThis.crypto.getRandomValues = <T extends ArrayBufferView | null>(arr: T): T => {
		if (!arr) return arr;
		const view = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
		view.set(randomBytes(arr.byteLength));
		return arr;
	};
	(Bun as { randomUUIDv7: () => string }).randomUUIDv7 = fakeUUIDv7;
	if (Bun.randomUUIDv7 !== fakeUUIDv7) throw new Error("Bun.randomUUIDv7 could not be replaced");
}
