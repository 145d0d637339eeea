// lib/context.mjs - the endpoint's clients (the official SDK and the raw HTTP client) and the
// per-case context: uniquely named tables, cleanup, fixture loading.
import { randomBytes } from 'node:crypto';
import { AzureNamedKeyCredential, TableClient, TableServiceClient } from '@azure/data-tables';
import { RawClient } from './http.mjs';

export function makeEnv({ endpoint, account, key, name, scale }) {
	const credential = new AzureNamedKeyCredential(account, key);
	// no retries: a conformance run must see every answer as it is, and stay bounded in time
	const clientOptions = { allowInsecureConnection: true, retryOptions: { maxRetries: 0 } };
	const runId = randomBytes(4).readUInt32BE(0).toString(36).padStart(6, 'a').slice(0, 6).replace(/^[0-9]/, 'k');
	return {
		endpoint: endpoint.replace(/\/+$/, ''),
		account,
		key,
		name,
		scale,
		credential,
		clientOptions,
		runId,
		svc: new TableServiceClient(endpoint, credential, clientOptions),
		raw: new RawClient({ endpoint, account, key }),
	};
}

export function makeCtx(env, caseIndex) {
	const tables = new Set();
	let counter = 0;
	const ctx = {
		...env,
		notes: [],
		note(s) {
			ctx.notes.push(s);
		},
		// a fresh table name, unique to this run and case (not created)
		tableName(prefix = 't') {
			counter++;
			const name = `${prefix}${env.runId}c${caseIndex.toString(36)}n${counter}`;
			tables.add(name);
			return name;
		},
		track(name) {
			tables.add(name);
		},
		client(name, options = {}) {
			return new TableClient(env.endpoint, name, env.credential, { ...env.clientOptions, ...options });
		},
		// create a fresh table through the SDK and return its TableClient
		async newTable(prefix = 't') {
			const name = ctx.tableName(prefix);
			await env.svc.createTable(name);
			return ctx.client(name);
		},
		async cleanup() {
			for (const name of tables) {
				try {
					await env.svc.deleteTable(name);
				} catch {
					/* best effort */
				}
			}
		},
		// insert entities with batches of at most 100 operations per partition, `width` at a time
		async load(tc, entities, width = 4) {
			const byPk = new Map();
			for (const e of entities) {
				if (!byPk.has(e.partitionKey)) byPk.set(e.partitionKey, []);
				byPk.get(e.partitionKey).push(['create', e]);
			}
			const chunks = [];
			for (const ops of byPk.values()) for (let i = 0; i < ops.length; i += 100) chunks.push(ops.slice(i, i + 100));
			let next = 0;
			const worker = async () => {
				while (next < chunks.length) await tc.submitTransaction(chunks[next++]);
			};
			await Promise.all(Array.from({ length: Math.min(width, chunks.length) }, worker));
		},
		// every entity of a query, through the SDK
		async all(tc, options = {}) {
			const out = [];
			for await (const e of tc.listEntities(options)) out.push(e);
			return out;
		},
	};
	return ctx;
}
