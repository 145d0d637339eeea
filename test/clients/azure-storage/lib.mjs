// test/clients/azure-storage/lib.mjs - what the azure-storage 2.10.7 checks share: the client
// loaded from the project's one Node package (test/sdk), its callbacks as promises that never
// reject ({error, result, response}), services for the development account on the gateway's
// path-style endpoint, the check counter (one line per check, "N passed, N failed") and
// assertions.
import crypto from 'node:crypto';
import { createRequire } from 'node:module';

export const DEV_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export function args() {
	const a = {};
	const argv = process.argv.slice(2);
	for (let i = 0; i < argv.length; i++) {
		if (!argv[i].startsWith('--')) continue;
		const next = argv[i + 1];
		if (next === undefined || next.startsWith('--')) a[argv[i].slice(2)] = true;
		else a[argv[i].slice(2)] = argv[++i];
	}
	return a;
}

// the client, from an npm install (default: test/sdk, where package.json pins it)
export function loadClient(pkg) {
	const require = createRequire(pkg ?? new URL('../../sdk/package.json', import.meta.url).pathname);
	return require('azure-storage');
}

export function endpoint(port) {
	return `http://127.0.0.1:${port}/devstoreaccount1`;
}

export function connectionString(port, key = DEV_KEY) {
	return `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${key};TableEndpoint=${endpoint(port)};`;
}

// call(service, 'method', ...args): the client's callback (error, result, response) as a promise.
// Methods whose callback is (error, response) (deleteTable, deleteEntity, setServiceProperties)
// give the response as `result` too.
export function call(svc, method, ...a) {
	return new Promise((resolve) => {
		try {
			svc[method](...a, (error, result, response) => {
				if (response === undefined && result && result.statusCode !== undefined) response = result;
				resolve({ error, result, response });
			});
		} catch (e) {
			resolve({ error: e, thrown: true });
		}
	});
}

let passed = 0, failed = 0;
export class Fail extends Error {}

export async function check(name, fn) {
	try {
		await Promise.race([fn(), new Promise((_, rej) => setTimeout(() => rej(new Fail('timed out after 30 s')), 30000).unref())]);
		passed++;
		console.log(`ok   ${name}`);
	} catch (e) {
		failed++;
		console.log(`FAIL ${name}: ${e instanceof Fail ? e.message : e.stack?.split('\n').slice(0, 3).join(' | ')}`);
	}
}

export function summary() {
	console.log(`${passed} passed, ${failed} failed`);
	return failed === 0;
}

const show = (v) => {
	const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? String(x) : x));
	return s === undefined ? String(v) : s.length > 300 ? s.slice(0, 300) + '...' : s;
};

export function ok(cond, what) {
	if (!cond) throw new Fail(what);
}

export function eq(got, want, what) {
	if (show(got) !== show(want)) throw new Fail(`${what}: got ${show(got)}, want ${show(want)}`);
}

// the call succeeded
export function must(r, what) {
	if (r.error) throw new Fail(`${what}: ${r.error.statusCode ?? ''} ${r.error.code ?? ''} ${String(r.error.message).split('\n')[0]}`);
	return r;
}

// the call failed with this status and service error code
export function wantErr(r, status, code, what) {
	if (!r.error) throw new Fail(`${what}: succeeded (${r.response?.statusCode}), want ${status} ${code}`);
	if (r.error.statusCode !== status || r.error.code !== code) {
		throw new Fail(`${what}: got ${r.error.statusCode} ${r.error.code} (${String(r.error.message).split('\n')[0]}), want ${status} ${code}`);
	}
	return r.error;
}

export function uniqueName(prefix) {
	return prefix + crypto.randomBytes(4).toString('hex');
}

// an entity in the client's descriptor form: every value {_: value[, $: type]}
export function entity(pk, rk, props = {}) {
	const e = { PartitionKey: { _: pk }, RowKey: { _: rk } };
	for (const [k, v] of Object.entries(props)) e[k] = v !== null && typeof v === 'object' && '_' in v ? v : { _: v };
	return e;
}

// plain values of an entity the client returned
export function values(e) {
	const o = {};
	for (const [k, v] of Object.entries(e ?? {})) if (k !== '.metadata') o[k] = v?._;
	return o;
}

export const etagOf = (e) => e?.['.metadata']?.etag;
