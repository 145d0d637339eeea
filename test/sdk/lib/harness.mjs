// lib/harness.mjs - the case registry and the assertions every case uses.
//
// A case is registered with test(id, title, basis, fn). `basis` says what the expectation rests
// on: "doc: <page title>: <rule>" for the service's documentation, "contract §N: <rule>" for the
// project's contract where the documentation is silent (and says so), or both. fn(ctx) throws on
// failure; ctx is built by lib/context.mjs.

export const registry = [];

export function test(id, title, basis, fn, opts = {}) {
	if (!/^[a-z0-9][a-z0-9.-]*$/.test(id)) throw new Error(`bad case id ${id}`);
	if (registry.some((c) => c.id === id)) throw new Error(`duplicate case id ${id}`);
	registry.push({ id, title, basis, fn, timeoutMs: opts.timeoutMs ?? 60_000 });
}

export class Failure extends Error {
	constructor(message) {
		super(message);
		this.name = 'Failure';
	}
}

export function fail(why) {
	throw new Failure(why);
}

// a short, single-line rendering of any value for failure messages
export function show(v, max = 160) {
	let s;
	if (typeof v === 'bigint') s = `${v}n`;
	else if (v instanceof Uint8Array) s = `Uint8Array(${v.length})`;
	else if (typeof v === 'number' && Object.is(v, -0)) s = '-0';
	else if (typeof v === 'string') s = JSON.stringify(v);
	else {
		try {
			s = JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? `${x}n` : x));
		} catch {
			s = String(v);
		}
		if (s === undefined) s = String(v);
	}
	s = s.replace(/\s+/g, ' ');
	return s.length > max ? s.slice(0, max) + '…' : s;
}

export function ok(cond, what) {
	if (!cond) fail(what);
}

export function eq(actual, expected, what) {
	if (!sameValue(actual, expected)) fail(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

export function deepEq(actual, expected, what) {
	if (!deepSame(actual, expected)) fail(`${what}: expected ${show(expected, 300)}, got ${show(actual, 300)}`);
}

function sameValue(a, b) {
	if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b) || (a === b && a !== 0);
	return a === b;
}

export function deepSame(a, b) {
	if (sameValue(a, b)) return true;
	if (a instanceof Uint8Array && b instanceof Uint8Array) {
		return a.length === b.length && a.every((x, i) => x === b[i]);
	}
	if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
	if (Array.isArray(a) && Array.isArray(b)) {
		return a.length === b.length && a.every((x, i) => deepSame(x, b[i]));
	}
	if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
		const ka = Object.keys(a).sort();
		const kb = Object.keys(b).sort();
		return deepSame(ka, kb) && ka.every((k) => deepSame(a[k], b[k]));
	}
	return false;
}

// What an error tells a caller: HTTP status and the service's error code, wherever the SDK or
// the raw response put it (RestError.code, details.errorCode from x-ms-error-code,
// details.odataError.code from the body, or the JSON body in the message).
export function errInfo(e) {
	if (!e || typeof e !== 'object') return { status: undefined, code: undefined, message: String(e) };
	if (e.raw) return { status: e.status, code: e.code, message: e.message }; // lib/http.mjs results
	let code = e.code ?? e.details?.errorCode ?? e.details?.odataError?.code;
	if (!code && typeof e.message === 'string' && e.message.startsWith('{')) {
		try {
			code = JSON.parse(e.message)['odata.error']?.code;
		} catch {
			/* not JSON */
		}
	}
	let message = e.details?.odataError?.message?.value ?? e.message;
	if (typeof message === 'string' && message.startsWith('{')) {
		try {
			message = JSON.parse(message)['odata.error']?.message?.value ?? message;
		} catch {
			/* not JSON */
		}
	}
	return { status: e.statusCode ?? e.status, code, message: String(message ?? '') };
}

// Await `promise`, which must fail with the given status (a number or a list) and code (a
// string or a list; omitted = any). Returns errInfo of the error.
export async function rejects(promise, want, what) {
	let value;
	try {
		value = await promise;
	} catch (e) {
		if (e instanceof Failure) throw e;
		const info = errInfo(e);
		checkError(info, want, what);
		return info;
	}
	fail(`${what}: expected an error ${describeWant(want)}, but it succeeded (${show(value)})`);
}

// Await `promise`, which must succeed; a failure names `what` and the error.
export async function accepts(promise, what) {
	try {
		return await promise;
	} catch (e) {
		if (e instanceof Failure) throw e;
		const info = errInfo(e);
		fail(`${what}: refused with ${info.status ?? ''} ${info.code ?? e?.code ?? ''} "${(info.message || String(e)).split('\n')[0].slice(0, 120)}"`);
	}
}

export function checkError(info, want, what) {
	const statuses = want.status === undefined ? null : [].concat(want.status);
	const codes = want.code === undefined ? null : [].concat(want.code);
	if ((statuses && !statuses.includes(info.status)) || (codes && !codes.includes(info.code))) {
		fail(`${what}: expected ${describeWant(want)}, got ${info.status} ${info.code ?? '(no code)'}` +
			(info.message ? ` "${info.message.split('\n')[0].slice(0, 120)}"` : ''));
	}
}

function describeWant(want) {
	const s = want.status === undefined ? 'any status' : [].concat(want.status).join('/');
	const c = want.code === undefined ? '' : ' ' + [].concat(want.code).join('/');
	return s + c;
}

// Run fn with a time limit; the case fails with "timed out" when it is exceeded.
export function withTimeout(promise, ms, label) {
	let timer;
	return Promise.race([
		promise.finally(() => clearTimeout(timer)),
		new Promise((_, reject) => {
			timer = setTimeout(() => reject(new Failure(`${label}: timed out after ${ms / 1000} s`)), ms);
		}),
	]);
}
