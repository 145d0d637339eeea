// bench/index/sdk_filters.mjs - the SDK side of bench/run.sh index: the official
// @azure/data-tables client reading the first page of each selective filter from an Azure Table
// endpoint - Azurite, or tablestore-gateway serving the benchmark's table - the same code for both.
//
//   node sdk_filters.mjs load PORT TABLE N
//       create TABLE with the N entities of bench/index/entities.pl (in 100-entity transactions)
//   node sdk_filters.mjs pages PORT TABLE ROUNDS FILTERS_TSV
//       for each filter of the file: ROUNDS first pages (at most 1000 entities, one client), one JSON
//       line per filter: {"name", "entities", "p50_ms", "min_ms"}
import { readFileSync } from 'node:fs';
import { table } from '../peers/sdk_table.mjs';

const pad = (v, n) => String(v).padStart(n, '0');

// entity i of entities.pl (the same properties, types and values)
function entity(i, n) {
	const created = new Date(Date.UTC(2020, 0, 1) + i * 1000).toISOString().replace('.000Z', 'Z');
	return {
		partitionKey: 'p' + pad(Math.floor(i / 1000), 5), rowKey: pad(i % 1000, 6),
		Name: `Customer ${i}`, Email: `c${i}@contoso.com`, City: `City ${i % 500}`, Age: 18 + (i % 60),
		Group: Number((BigInt(i) * 7919n) % BigInt(n / 100)), Rank: Number((BigInt(i) * 48271n) % BigInt(n)),
		Score: { value: (Number((BigInt(i) * 104729n) % BigInt(n / 10)) / 100).toFixed(2), type: 'Double' },
		Active: i % 2 === 1, Created: { value: created, type: 'DateTime' },
		Balance: { value: '1234.56', type: 'Double' },
	};
}

async function pool(count, width, fn) {
	let next = 0;
	const worker = async () => { while (next < count) await fn(next++); };
	await Promise.all(Array.from({ length: width }, worker));
}

async function load(port, name, n) {
	const t = table(port, name);
	await t.deleteTable().catch(() => {});
	await t.createTable();
	// a transaction holds one partition: 100 consecutive entities of one thousand
	await pool(n / 100, 4, (b) => t.submitTransaction(Array.from({ length: 100 }, (_, k) =>
		['create', entity(b * 100 + k, n)])));
}

async function pages(port, name, rounds, file) {
	const t = table(port, name);
	const filters = readFileSync(file, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'))
		.map((l) => l.split('\t'));
	for (const [fname, filter] of filters) {
		const lat = [];
		let entities = -1;
		for (let r = 0; r < rounds; r++) {
			const s = performance.now();
			const it = t.listEntities({ queryOptions: { filter } }).byPage({ maxPageSize: 1000 });
			const first = await it.next();
			lat.push(performance.now() - s);
			const got = first.done ? 0 : first.value.length;
			if (entities >= 0 && got !== entities) throw new Error(`${fname}: ${got} entities, then ${entities}`);
			entities = got;
		}
		lat.sort((a, b) => a - b);
		console.log(JSON.stringify({ name: fname, entities, p50_ms: lat[Math.floor(lat.length / 2)], min_ms: lat[0] }));
	}
}

const [cmd, port, name, ...rest] = process.argv.slice(2);
try {
	if (cmd === 'load') await load(+port, name, +rest[0]);
	else if (cmd === 'pages') await pages(+port, name, +rest[0], rest[1]);
	else throw new Error('usage: sdk_filters.mjs load PORT TABLE N | pages PORT TABLE ROUNDS FILTERS_TSV');
} catch (e) {
	console.error(`sdk_filters: ${e.message}`);
	process.exit(1);
}
