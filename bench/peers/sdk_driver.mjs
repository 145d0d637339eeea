// bench/peers/sdk_driver.mjs - the SDK side of bench/run.sh compare: the official
// @azure/data-tables client driving an Azure Table endpoint - Azurite or tablestore-gateway, the
// same code for both - with the same entities and operations as bench/compare/pg/*.sql.
//
//   node sdk_driver.mjs load PORT N VICTIMS
//       tables main (N entities: PartitionKey 'p' + 4 digits of i / 1000, RowKey 6 digits of
//       i % 1000, ten properties, Age = 18 + i % 60), victims (VICTIMS entities) and writes
//   node sdk_driver.mjs run PORT WORKLOAD CLIENTS SECONDS N [FIRST COUNT]
//       runs WORKLOAD (insert get merge replace delete batch range page select scan, or mixed: each
//       client cycles through insert, get, merge, range, a 10-entity batch) with CLIENTS
//       concurrent clients for SECONDS (delete: victims FIRST .. FIRST + COUNT - 1 instead; scan:
//       COUNT scans) and prints one JSON line: {"ops", "entities", "seconds", "p50_ms", "p99_ms"}
import { table, odata } from './sdk_table.mjs';

const pad = (v, n) => String(v).padStart(n, '0');
const pk = (i) => 'p' + pad(Math.floor(i / 1000), 4);
const rk = (i) => pad(i % 1000, 6);
const doc = (i) => ({
	Name: `Customer ${i}`, Email: `c${i}@contoso.com`, City: 'Berlin', Country: 'DE', Age: 18 + (i % 60),
	Orders: 17, Score: 12.25, Balance: 1234.56, Active: true, Vip: false,
});
const victim = (s) => ({ partitionKey: 'd' + (s % 100), rowKey: pad(s, 8) });
const rand = (n) => Math.floor(Math.random() * n);

// run fn(k) for k in 0..count-1 with at most `width` in flight
async function pool(count, width, fn) {
	let next = 0;
	const worker = async () => { while (next < count) await fn(next++); };
	await Promise.all(Array.from({ length: width }, worker));
}

async function load(port, n, victims) {
	for (const name of ['main', 'writes', 'victims']) {
		const t = table(port, name);
		await t.deleteTable().catch(() => {});
		await t.createTable();
	}
	const main = table(port, 'main');
	await pool(n / 100, 4, (b) => main.submitTransaction(Array.from({ length: 100 }, (_, k) => {
		const i = b * 100 + k;
		return ['create', { partitionKey: pk(i), rowKey: rk(i), ...doc(i) }];
	})));
	// victims 1..VICTIMS, grouped by partition into transactions of at most 100
	const byPart = new Map();
	for (let s = 1; s <= victims; s++) {
		const v = victim(s);
		if (!byPart.has(v.partitionKey)) byPart.set(v.partitionKey, []);
		byPart.get(v.partitionKey).push(['create', { ...v, ...doc(s) }]);
	}
	const chunks = [];
	for (const list of byPart.values()) for (let k = 0; k < list.length; k += 100) chunks.push(list.slice(k, k + 100));
	const vt = table(port, 'victims');
	await pool(chunks.length, 4, (c) => vt.submitTransaction(chunks[c]));
}

async function run(port, workload, clients, seconds, n, first, count) {
	const main = table(port, 'main');
	const writes = table(port, 'writes');
	const victims = table(port, 'victims');
	const runId = Date.now().toString(36);
	let seq = 0;
	let nextVictim = first;
	const lastVictim = first + count - 1;
	const ops = {
		insert: async (w) => {
			const s = seq++;
			await writes.createEntity({ partitionKey: `q${w}_${runId}`, rowKey: 'n' + s, ...doc(s) });
			return 1;
		},
		get: async () => { const i = rand(n); await main.getEntity(pk(i), rk(i)); return 1; },
		merge: async () => {
			const i = rand(n);
			await main.updateEntity({ partitionKey: pk(i), rowKey: rk(i), Score: 1 + rand(1000000) }, 'Merge');
			return 1;
		},
		replace: async () => {
			const i = rand(n);
			await main.updateEntity({ partitionKey: pk(i), rowKey: rk(i), ...doc(i) }, 'Replace');
			return 1;
		},
		delete: async () => {
			const s = nextVictim++;
			if (s > lastVictim) return 0;
			const v = victim(s);
			await victims.deleteEntity(v.partitionKey, v.rowKey);
			return 1;
		},
		batch: async (w) => {
			const b = `${runId}_${w}_${seq++}`;
			await writes.submitTransaction(Array.from({ length: 100 }, (_, k) =>
				['create', { partitionKey: `b${w}`, rowKey: `${b}_${pad(k, 3)}`, ...doc(k) }]));
			return 100;
		},
		range: async () => {
			const p = rand(n / 1000), r = rand(900);
			let got = 0;
			const filter = odata`PartitionKey eq ${pk(p * 1000)} and RowKey ge ${rk(r)} and RowKey lt ${rk(r + 100)}`;
			for await (const e of main.listEntities({ queryOptions: { filter } })) got++;
			return got;
		},
		page: async () => {
			const p = rand(n / 1000);
			let got = 0;
			const pages = main.listEntities({ queryOptions: { filter: odata`PartitionKey eq ${pk(p * 1000)}` } })
				.byPage({ maxPageSize: 100 });
			for await (const page of pages) got += page.length;
			return got;
		},
		select: async () => {
			// a selective filter's first page: 1000 entities of Age 20 (one in 60)
			const pages = main.listEntities({ queryOptions: { filter: 'Age eq 20' } }).byPage({ maxPageSize: 1000 });
			const first = await pages.next();
			if (first.done || first.value.length === 0) throw new Error('the selective filter matched nothing');
			return first.value.length;
		},
		mixed: async (w) => {
			const s = seq++;
			switch (s % 5) {
				case 0: return ops.insert(w);
				case 1: return ops.get();
				case 2: return ops.merge();
				case 3: return ops.range();
				default: {
					const b = `${runId}_${w}_${s}`;
					await writes.submitTransaction(Array.from({ length: 10 }, (_, k) =>
						['create', { partitionKey: `m${w}`, rowKey: `${b}_${k}`, ...doc(k) }]));
					return 10;
				}
			}
		},
		scan: async () => {
			let matched = 0;
			for await (const e of main.listEntities({ queryOptions: { filter: 'Age gt 75' } })) matched++;
			if (matched === 0) throw new Error('the scan matched nothing');
			return n;				// entities scanned
		},
	};
	const op = ops[workload];
	if (!op) throw new Error(`unknown workload ${workload}`);
	const lat = [];
	let entities = 0;
	const cpu0 = process.cpuUsage();
	const t0 = performance.now();
	const deadline = t0 + seconds * 1000;
	let started = 0;
	const done = () => workload === 'delete' ? nextVictim > lastVictim :
		workload === 'scan' ? started >= count : performance.now() >= deadline;
	await Promise.all(Array.from({ length: clients }, async (_, w) => {
		for (;;) {
			if (done()) break;
			started++;
			const s = performance.now();
			const got = await op(w);
			if (got === 0) break;
			lat.push(performance.now() - s);
			entities += got;
		}
	}));
	const secs = (performance.now() - t0) / 1000;
	const cpu = process.cpuUsage(cpu0);	// the driver's own CPU: what a server cannot take away
	lat.sort((a, b) => a - b);
	const q = (f) => lat.length ? lat[Math.min(lat.length - 1, Math.floor(f * lat.length))] : 0;
	console.log(JSON.stringify({ ops: lat.length, entities, seconds: secs, p50_ms: q(0.5), p99_ms: q(0.99),
		client_cpu_us: cpu.user + cpu.system }));
}

const [cmd, port, ...rest] = process.argv.slice(2);
try {
	if (cmd === 'load') await load(+port, +rest[0], +rest[1]);
	else if (cmd === 'run') await run(+port, rest[0], +rest[1], +rest[2], +rest[3], +(rest[4] ?? 1), +(rest[5] ?? 0));
	else throw new Error('usage: sdk_driver.mjs load PORT N VICTIMS | run PORT WORKLOAD CLIENTS SECONDS N [FIRST COUNT]');
} catch (e) {
	console.error(`sdk_driver: ${e.message}`);
	process.exit(1);
}
