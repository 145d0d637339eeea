#!/usr/bin/env node
// run.mjs - the conformance suite for an Azure Table service endpoint.
//
//   node test/sdk/run.mjs --endpoint http://127.0.0.1:PORT/devstoreaccount1
//        [--account devstoreaccount1 --key <base64>] [--name tablestore|azurite]
//        [--only pattern] [--scale small|full] [--jobs N] [--json FILE] [--list]
//
// Every case runs against the endpoint, one line each (`ok <id> <title>` or
// `FAILED <id> <title>: <why>`), then `N passed, N failed`; the exit status is 1 when a case failed
// (2 for a usage error). --only keeps the cases whose id matches the pattern (a regular expression;
// several may be given, comma-separated). --json writes the results for diff.mjs.
import { writeFileSync } from 'node:fs';
import { errInfo, registry, withTimeout } from './lib/harness.mjs';
import { makeCtx, makeEnv } from './lib/context.mjs';

import './cases/tables.mjs';
import './cases/entities.mjs';
import './cases/types.mjs';
import './cases/keys.mjs';
import './cases/queries.mjs';
import './cases/paging.mjs';
import './cases/batch.mjs';
import './cases/limits.mjs';
import './cases/sas.mjs';
import './cases/service.mjs';
import './cases/raw_protocol.mjs';
import './cases/raw_metadata.mjs';
import './cases/raw_auth.mjs';
import './cases/raw_batch.mjs';
import './cases/raw_errors.mjs';
import './cases/compat.mjs';

// Azurite's well-known development account (public, documented by Microsoft)
const DEV_ACCOUNT = 'devstoreaccount1';
const DEV_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

function usage(msg) {
	if (msg) console.error(`run.mjs: ${msg}`);
	console.error('usage: node run.mjs --endpoint URL [--account NAME --key BASE64] [--name LABEL] [--only PATTERN] [--scale small|full] [--jobs N] [--json FILE] [--list]');
	process.exit(2);
}

function parseArgs(argv) {
	const a = { account: DEV_ACCOUNT, key: DEV_KEY, name: 'endpoint', scale: 'full', jobs: 4 };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		const val = () => {
			if (i + 1 >= argv.length) usage(`${arg} needs a value`);
			return argv[++i];
		};
		switch (arg) {
			case '--endpoint': a.endpoint = val(); break;
			case '--account': a.account = val(); break;
			case '--key': a.key = val(); break;
			case '--name': a.name = val(); break;
			case '--only': a.only = val(); break;
			case '--scale': a.scale = val(); break;
			case '--jobs': a.jobs = Number(val()); break;
			case '--json': a.json = val(); break;
			case '--list': a.list = true; break;
			case '-h': case '--help': usage(); break;
			default: usage(`unknown argument ${arg}`);
		}
	}
	if (!['small', 'full'].includes(a.scale)) usage('--scale is small or full');
	if (!(a.jobs >= 1 && a.jobs <= 16)) usage('--jobs is 1 to 16');
	if (!a.list && !a.endpoint) usage('--endpoint is required');
	return a;
}

const args = parseArgs(process.argv.slice(2));
let selected = registry;
if (args.only) {
	const res = args.only.split(',').map((p) => new RegExp(p));
	selected = registry.filter((c) => res.some((re) => re.test(c.id)));
}
if (args.list) {
	for (const c of selected) console.log(`${c.id}\t${c.title}\t${c.basis}`);
	process.exit(0);
}
if (selected.length === 0) usage(`no case matches --only ${args.only}`);

const env = makeEnv(args);
const started = Date.now();
const results = new Array(selected.length);
let printed = 0;

function flush() {
	while (printed < selected.length && results[printed]) {
		const r = results[printed++];
		console.log(r.status === 'ok' ? `ok ${r.id} ${r.title}` : `FAILED ${r.id} ${r.title}: ${r.why}`);
	}
}

async function runCase(index) {
	const c = selected[index];
	const ctx = makeCtx(env, registry.indexOf(c));
	const t0 = Date.now();
	let status = 'ok';
	let why;
	try {
		await withTimeout(Promise.resolve().then(() => c.fn(ctx)), c.timeoutMs, 'case');
	} catch (e) {
		status = 'failed';
		if (e?.name === 'Failure') why = e.message;
		else {
			const info = errInfo(e);
			why = `unexpected error: ${info.status ?? ''} ${info.code ?? e?.code ?? e?.name ?? ''} ${(info.message || String(e)).split('\n')[0].slice(0, 200)}`.replace(/\s+/g, ' ').trim();
		}
	}
	try {
		await withTimeout(ctx.cleanup(), 30_000, 'cleanup');
	} catch {
		/* a cleanup problem does not change the verdict */
	}
	results[index] = { id: c.id, title: c.title, status, why, basis: c.basis, notes: ctx.notes, ms: Date.now() - t0 };
	flush();
}

let next = 0;
await Promise.all(Array.from({ length: Math.min(args.jobs, selected.length) }, async () => {
	while (next < selected.length) await runCase(next++);
}));

const passed = results.filter((r) => r.status === 'ok').length;
const failed = results.length - passed;
const seconds = (Date.now() - started) / 1000;
console.log(`${passed} passed, ${failed} failed (${seconds.toFixed(1)} s)`);
if (args.json) {
	const doc = {
		name: args.name,
		endpoint: args.endpoint,
		scale: args.scale,
		only: args.only ?? null,
		started: new Date(started).toISOString(),
		seconds: Number(seconds.toFixed(1)),
		passed,
		failed,
		cases: results,
	};
	writeFileSync(args.json, JSON.stringify(doc, null, 1) + '\n');
}
process.exit(failed ? 1 : 0);
