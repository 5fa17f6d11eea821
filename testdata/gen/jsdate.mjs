#!/usr/bin/env node
// Records what JavaScript's Date.parse and toISOString really return, so the
// Go port in pi/date.go can be checked against V8 without Node in CI.
//
//   TZ=UTC node testdata/gen/jsdate.mjs
//
// Writes internal/js/testdata/jsdate.json      [{"input": "...", "ms": <number, or null for NaN>}]
//    and internal/js/testdata/jsisostring.json [{"ms": <number>, "iso": "..."}]
//
// pidex reads zone-less (local) times as UTC, so the table is made in UTC. The
// script re-runs itself with TZ=UTC if needed, and refuses to write anything
// if the zone is still not UTC. No dependencies.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);

function zoneIsUTC() {
  // Check several instants: a zone can have offset 0 at one date and not another.
  const instants = [0, Date.UTC(2026, 0, 15), Date.UTC(2026, 6, 15), Date.UTC(-1000, 0, 1), Date.UTC(275000, 0, 1)];
  return process.env.TZ === "UTC" && instants.every((t) => new Date(t).getTimezoneOffset() === 0);
}

if (!zoneIsUTC()) {
  if (process.env.PIDEX_JSDATE_REEXEC) {
    console.error("jsdate.mjs: the time zone is still not UTC after re-running with TZ=UTC; refusing to write");
    process.exit(1);
  }
  const r = spawnSync(process.execPath, [SELF, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, TZ: "UTC", PIDEX_JSDATE_REEXEC: "1" },
  });
  process.exit(r.status ?? 1);
}

// Inputs for Date.parse. Grouped by what they exercise; duplicates are removed below.
const inputs = [
  // --- What pi writes (toISOString) and close relatives
  "2026-09-14T09:12:03.117Z",
  "2026-05-01T10:00:05.123Z",
  "1970-01-01T00:00:00.000Z",
  "1969-12-31T23:59:59.999Z",
  "0000-01-01T00:00:00.000Z",
  "9999-12-31T23:59:59.999Z",
  "+010000-01-01T00:00:00.000Z",
  "-000001-12-31T23:59:59.999Z",

  // --- ES ISO format: every length of the date part
  "2026",
  "2026-05",
  "2026-05-01",
  "0001-01-01",
  "1900-01-01",
  "2024-02-29",
  "2026-12-31",

  // --- ISO date-time, separators and zones
  "2026-05-01T10:00",
  "2026-05-01T10:00Z",
  "2026-05-01T10:00:05",
  "2026-05-01T10:00:05Z",
  "2026-05-01t10:00:05z",
  "2026-05-01T10:00:05.123",
  "2026-05-01T10:00+02:00",
  "2026-05-01T10:00:05+02:00",
  "2026-05-01T10:00:05.123-07:00",
  "2026-05-01T10:00:05+0200",
  "2026-05-01T10:00:05-0530",
  "2026-05-01T10:00:05+05:45",
  "2026-05-01T10:00:05+23:59",
  "2026-05-01T10:00:05-00:00",
  "2026-05-01T10:00:05-0000",
  "2026-05-01T10:00:05+00:00",
  "2026-05-01T10:00:05.000+00:00",
  "2026-05-01T10:00:05.123456+00:00",
  "2026-05-01T10:00:05.123456789Z",
  "2026-05-01T10:00:05.123456789+05:30",
  "2026-05-01 10:00",
  "2026-05-01 10:00Z",
  "2026-05-01 10:00:05",
  "2026-05-01 10:00:05Z",
  "2026-05-01 10:00:05.123Z",
  "2026-05-01 10:00:05+02:00",
  "2026-05-01 10:00:05 +0200",
  "2026-05-01 10:00:05 GMT+0200",
  "2026-05-01 10:00:05.123456+00",
  "2026-05-01  10:00",
  "2026-05-01\t10:00",
  "2026-05-01\n10:00",
  "2026-05-01 10:00 PM",
  "2026-05-01 10:00:00 am",
  "2026-05-01Z",
  "2026-05-01 Z",
  "2026-05-01 UTC",

  // --- Fractions of 1..12 digits, leading zeros
  "2026-05-01T10:00:05.1Z",
  "2026-05-01T10:00:05.12Z",
  "2026-05-01T10:00:05.1234Z",
  "2026-05-01T10:00:05.12345Z",
  "2026-05-01T10:00:05.123456Z",
  "2026-05-01T10:00:05.1234567Z",
  "2026-05-01T10:00:05.12345678Z",
  "2026-05-01T10:00:05.1234567891Z",
  "2026-05-01T10:00:05.12345678912Z",
  "2026-05-01T10:00:05.123456789123Z",
  "2026-05-01T10:00:05.0Z",
  "2026-05-01T10:00:05.5Z",
  "2026-05-01T10:00:05.05Z",
  "2026-05-01T10:00:05.005Z",
  "2026-05-01T10:00:05.0005Z",
  "2026-05-01T10:00:05.999999Z",
  "2026-05-01T10:00:05.9999999999Z",
  "2026-05-01T10:00:05.0001234567Z",
  "2026-05-01T10:00:05.000123456789Z",
  "2026-05-01T10:00:05.000000000001Z",
  "2026-05-01T10:00:05.",
  "2026-05-01T10:00:05,123Z",

  // --- Extended years and the edges of the Date range
  "+002026-05-01T10:00:00Z",
  "+002026-05-01",
  "-002026-05-01",
  "+000000-01-01T00:00:00Z",
  "-000000-01-01T00:00:00Z",
  "-000000",
  "-000000-01-01",
  "-000001-01-01T00:00:00Z",
  "+275760-09-13T00:00:00.000Z",
  "+275760-09-13T00:00:00.001Z",
  "+275760-09-13T01:00:00+01:00",
  "+275760-09-13T00:00:00-00:01",
  "-271821-04-20T00:00:00.000Z",
  "-271821-04-19T23:59:59.999Z",
  "-271821-04-19T23:00:00-01:00",
  "+999999-12-31",
  "-999999-01-01",
  "+10000-01-01",
  "10000-01-01",
  "12026-05-01",
  "02026-05-01",
  "+2026-05-01",
  "-2026-05-01",

  // --- Range checks and overflowing days
  "2026-02-29",
  "2026-02-30",
  "2026-02-31",
  "2026-04-31",
  "2026-02-32",
  "2026-00-01",
  "2026-13-01",
  "2026-05-00",
  "2026-05-01T24:00",
  "2026-05-01T24:00:00",
  "2026-05-01T24:00:00.000Z",
  "2026-05-01T24:00:00.0000000000Z",
  "2026-12-31T24:00:00Z",
  "2026-05-01T24:00:01",
  "2026-05-01T24:01",
  "2026-05-01T24:00:00.001Z",
  "2026-05-01T25:00",
  "2026-05-01T23:60",
  "2026-05-01T23:59:60",
  "2026-05-01T10:00:05+24:00",
  "2026-05-01T10:00:05+2400",
  "2026-05-01T10:00:05+12:60",

  // --- Malformed ISO
  "2026-5-1",
  "2026-05-1",
  "2026-5",
  "2026-05-01T10",
  "2026-05-01T1:00",
  "2026-05-01T10:0",
  "2026-05-01T10:00:0",
  "2026-05-01T",
  "2026-05-01TZ",
  "2026-05-01T10:00:05ZZ",
  "2026-05-01T10:00:05 Z",
  "2026-05-01T10:00:05+02",
  "2026-05-01T10:00:05+2:00",
  "2026-05-01T10:00:05+02:0",
  "2026-05-01T10:00:05+020",
  "2026-05-01T10:00:05 +02:00",
  "2026-05-01T10:00:05GMT",
  "2026-05-01T10:00:05UTC",
  "2026-05-01T10:00:05Zgarbage",
  "2026-05-01T10:00:00.000Z (UTC)",
  "20260501",
  "20260501T100000Z",
  "2026-W18",
  "2026-121",
  "2026_05_01",

  // --- Legacy: numeric dates
  "2026/05/01",
  "2026/5/1",
  "2026/05/01 10:00",
  "2026/05/01 10:00:00",
  "2026/05/01 10:00:00 +0200",
  "2026/05/01 10:00:00 GMT+2",
  "2026/05/01 10:00:00 UTC",
  "05/01/2026",
  "5/1/2026",
  "5/1/2026 10:00:00 PM",
  "01/05/26",
  "1/5/99",
  "1/5/50",
  "1/5/49",
  "1/1/0",
  "13/01/2026",
  "31/12/2026",
  "2026.05.01",
  "1.5.2026",
  "2026-05-01 garbage",
  "10:00 2026-05-01",

  // --- Legacy: month names, RFC 2822, toUTCString, toString, toDateString
  "May 1, 2026",
  "May 1 2026",
  "1 May 2026",
  "1 May 2026 10:00:00 GMT",
  "01 May 2026 10:00:00 +0200",
  "Fri, 01 May 2026 10:00:00 GMT",
  "Fri, 01 May 2026 10:00:00 +0000",
  "Fri, 1 May 2026 10:00:00 -0700",
  "Fri, 01 May 2026 10:00:00 EST",
  "Fri, 01 May 2026 10:00:00 EDT",
  "Fri, 01 May 2026 10:00:00 CST",
  "Fri, 01 May 2026 10:00:00 CDT",
  "Fri, 01 May 2026 10:00:00 MST",
  "Fri, 01 May 2026 10:00:00 MDT",
  "Fri, 01 May 2026 10:00:00 PST",
  "Fri, 01 May 2026 10:00:00 PDT",
  "Fri, 01 May 2026 10:00:00 CET",
  "Mon, 14 Sep 2026 09:12:03 +0000",
  "Fri May 01 2026 10:00:00 GMT+0000 (Coordinated Universal Time)",
  "Fri May 01 2026 12:00:00 GMT+0200 (Central European Summer Time)",
  "Fri May 01 2026 03:00:00 GMT-0700 (Pacific Daylight Time)",
  "Fri May 01 2026",
  "Fri May 01 2026 10:00:00",
  "Thu May 1 10:00:00 UTC 2026",
  "Sat Sep 14 09:12:03 2026",
  "Thursday, May 1, 2026",
  "May 2026",
  "May 1",
  "May",
  "2026 May 1",
  "2026-May-01",
  "01-May-2026",
  "1-May-26",
  "Mayday 1 2026",
  "Sept 1 2026",
  "september 1 2026",
  "JUNE 1 2026",
  "December 25, 2026 11:30 PM",
  "December 25, 2026 12:00 AM",
  "Dec 25 2026 12:00 pm",
  "Dec 25 2026 12:30 am",
  "Dec 25 2026 13:00 PM",
  "Dec 25 2026 0:00 AM",
  "10:00:00 AM May 1 2026",
  "May 1 2026 10:00:00 UTC",
  "May 1 2026 10:00:00 UT",
  "May 1 2026 10:00:00 Z",
  "May 1 2026 10:00:00Z",
  "May 1 2026 10:00:00 GMT+02:00",
  "May 1 2026 10:00:00 GMT-8",
  "May 1 2026 10:00:00 GMT+530",
  "May 1 2026 10:00:00 GMT+12345",
  "May 1 2026 10:00:00 GMT+99",
  "May 1 2026 10:00:00 GMT+9999",
  "May 1 2026 10:00:00 GMT+",
  "May 1 2026 10:00:00 GMT-0",
  "May 1 2026 10:00:00 -0",
  "May 1 2026 10:00:00 +02",
  "May 1 2026 10:00:00+0200",
  "May 1 2026 10:00:00 +0200 +0100",
  "May 1 2026 10:00:00 GMT",
  "May 1 2026 10:00:00.123",
  "May 1 2026 10:00:00.1234567",
  "May 1 2026 10:00:00.",
  "May 1 2026 10::",
  "May 1 2026 10:",
  "May 1 2026 10:00 pm",
  "May 1 2026 24:00",
  "May 1 2026 24:00:01",
  "May 1 2026 10:60",
  "May 1 2026 10.30",
  "May 1 2026 10:00:00,",
  "May 1 2026 (note)",
  "May 1 2026 (a (nested) note)",
  "May 1 2026 (unclosed",
  "May 1 2026 )",
  "(note) May 1 2026",
  "May 1 2026 +0200",
  "May 1 2026 GMT+0200",
  "May 1 2026 am",
  "on May 1 2026",
  "x2026-05-01",
  "-May 1 2026",
  "2000-01-01 00:00 GMT+298262:",
  "2000-01-01 00:00 GMT+596523:",
  "2000-01-01 00:00 GMT+596524:",
  "2000-01-01 00:00 GMT+0000000010:",

  // --- Whitespace (ASCII, Unicode, line terminators) and NUL
  " 2026-05-01",
  "2026-05-01 ",
  "\t2026-05-01\n",
  " 2026-05-01 10:00:00 ",
  " 2026-05-01T10:00:00Z",
  "2026-05-01T10:00:00Z ",
  "2026-05-01T10:00:00Z\n",
  "\u00a02026-05-01",
  "2026-05-01\u00a010:00",
  "2026-05-01\u200a10:00",
  "2026-05-01\u300010:00",
  "2026-05-01\u202810:00",
  "2026-05-01\u202910:00",
  "2026-05-01\u008510:00",
  "2026-05-01\u000b10:00",
  "2026-05-01\u000c10:00",
  "2026-05-01\r10:00",
  "2026-05-01\u001c10:00",
  "2026-05-01 10:00\u001c",
  "2026-05-01 10:00\u000b",
  "\ufeff2026-05-01",
  "\ufeff2026-05-01T10:00:00Z",
  "May\u00a01,\u00a02026",
  "2026-05-01\u0000junk",
  "2026-05-01T10:00:00.123Z\u0000",
  "\u00002026-05-01",

  // --- Unicode digits and other scripts
  "２０２６-０５-０１",
  "２０２６-05-01",
  "٢٠٢٦-٠٥-٠١",
  "2026-05-01T10:00:00.١٢٣Z",
  "May ١, 2026",
  "2026-05-01T10:00:00Ｚ",
  "Mäy 1 2026",
  "Maÿ 1 2026",
  "2026-05-01 10:00 😀",
  "😀 2026-05-01",

  // --- Junk and other things that are not dates
  "",
  " ",
  "hello",
  "yesterday",
  "now",
  "today",
  "null",
  "undefined",
  "NaN",
  "Invalid Date",
  "true",
  "{}",
  "[object Object]",
  "T",
  "Z",
  "GMT",
  "1777629605000",
  "1777629605",
  "177762960",
  "0",
  "1",
  "12",
  "31",
  "32",
  "99",
  "100",
  "-1",
  "+1",
  "1e3",
  "0x10",
  "2026-05-01garbage",
  "garbage 2026-05-01",
  "garbage2026-05-01",
  "garbage-2026-05-01",

  // --- Large numbers in legacy dates
  "275760-09-13",
  "May 1 275760",
  "Sep 13 275760",
  "Sep 14 275760",
  "May 1 999999",
  "May 1 1000000",
  "May 1 1000001",
  "1/1/1000000000",
  "1/1/12345678901",
  "99999/1/1",
  "0000000002026/05/01",
  "00000000000000002026/05/01",
];

const seen = new Set();
const rows = [];
for (const input of inputs) {
  if (seen.has(input)) continue;
  seen.add(input);
  const ms = Date.parse(input);
  rows.push({ input, ms: Number.isNaN(ms) ? null : ms });
}

// Values for toISOString: around year 0, year 9999, the epoch and the Date range.
const isoValues = [
  0, 1, -1, 999, -999, 1000, -1000, 1777629605000, 1777629605123, 951782400000, -2208988800000,
  4102444800000, 1e15, -1e15, -62135596800000, -62135596800001, -62167219200000, -62167219200001,
  253402300799999, 253402300800000, 8.64e15, -8.64e15, 8.64e15 - 1, -8.64e15 + 1,
];
const isoRows = isoValues.map((ms) => ({ ms, iso: new Date(ms).toISOString() }));

// One row per line, so a regenerated table diffs well.
const lines = (xs) => "[\n" + xs.map((x) => "  " + JSON.stringify(x)).join(",\n") + "\n]\n";
const out = join(dirname(SELF), "..", "..", "internal", "js", "testdata");
writeFileSync(join(out, "jsdate.json"), lines(rows));
writeFileSync(join(out, "jsisostring.json"), lines(isoRows));
console.log(`jsdate.mjs: node ${process.version}: ${rows.length} Date.parse rows, ${isoRows.length} toISOString rows -> ${out}`);
