// test/gateway/crash_load.mjs - the client side of test/gateway/crash.sh: official-SDK load
// through tablestore-gateway while PostgreSQL is killed, and the check of what was acknowledged.
//
//   node crash_load.mjs load PORT TABLE CLIENT SECONDS MAX_OPS ACKFILE STOPFILE
//       one client: inserts, 10-entity transactions, counter upserts and deletes of its own
//       earlier inserts, one at a time, until STOPFILE exists, SECONDS have passed or MAX_OPS
//       operations were sent, whichever comes first.
//       After every 2xx answer it appends "ack <op> <PartitionKey> <RowKey> <n>" to ACKFILE; any
//       other answer or a refused connection is counted and the client goes on after 20 ms.
//       The SDK's retries are off, so each write is sent once and an ack is a real 2xx.
//   node crash_load.mjs check ACKFILE... < DUMP
//       DUMP: "PartitionKey<TAB>RowKey<TAB>n" for every stored entity. Every acknowledged insert
//       or transaction entity is there with its n (unless its deletion was acknowledged later,
//       or was sent and never answered: that may or may not have committed), every acknowledged
//       deletion is gone, every counter holds at least its last acknowledged value. Prints "ok ..." or "not ok ..." lines and exits 1 on a violation.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const { TableClient } = createRequire(new URL('../sdk/package.json', import.meta.url))('@azure/data-tables');
const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const [mode, ...args] = process.argv.slice(2);

async function load([port, table, client, seconds, maxOps, ackFile, stopFile]) {
	const conn = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};` +
		`TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`;
	const tc = TableClient.fromConnectionString(conn, table, { allowInsecureConnection: true, retryOptions: { maxRetries: 0 } });
	const pk = `c${client}`;
	const end = Date.now() + Number(seconds) * 1000;
	const inserted = [];
	let acks = 0, errors = 0;
	const ack = (line) => { appendFileSync(ackFile, line + '\n'); acks++; };
	for (let i = 1; i <= Number(maxOps) && Date.now() < end && !existsSync(stopFile); i++) {
		const rk = `i${String(i).padStart(6, '0')}`;
		try {
			switch (i % 5) {
				case 1: case 2:
					await tc.createEntity({ partitionKey: pk, rowKey: rk, n: i });
					ack(`ack insert ${pk} ${rk} ${i}`);
					inserted.push(rk);
					break;
				case 3: {
					const bpk = `${pk}b`;
					await tc.submitTransaction(Array.from({ length: 10 }, (_, k) =>
						['create', { partitionKey: bpk, rowKey: `${rk}_${k}`, n: i }]));
					for (let k = 0; k < 10; k++) ack(`ack insert ${bpk} ${rk}_${k} ${i}`);
					break;
				}
				case 4:
					await tc.upsertEntity({ partitionKey: pk, rowKey: 'counter', n: i }, 'Replace');
					ack(`ack counter ${pk} counter ${i}`);
					break;
				default: {
					const victim = inserted.shift();
					if (victim === undefined) break;
					// a delete that gets no answer may still have committed: the check skips its key
					appendFileSync(ackFile, `sent delete ${pk} ${victim} 0\n`);
					await tc.deleteEntity(pk, victim);
					ack(`ack delete ${pk} ${victim} 0`);
				}
			}
		} catch (e) {
			errors++;
			await new Promise((r) => setTimeout(r, 20));
		}
	}
	console.log(`client ${client}: ${acks} acknowledged, ${errors} refused or failed`);
}

function check(ackFiles) {
	const stored = new Map();
	for (const line of readFileSync(0, 'utf8').split('\n')) {
		if (!line) continue;
		const [p, r, n] = line.split('\t');
		stored.set(`${p}\u0000${r}`, Number(n));
	}
	const expect = new Map();	// key -> {present, n, counter}
	let acks = 0;
	for (const f of ackFiles) {
		for (const line of readFileSync(f, 'utf8').split('\n')) {
			const m = /^(ack|sent) (\w+) (\S+) (\S+) (\d+)$/.exec(line);
			if (!m) continue;
			const key = `${m[3]}\u0000${m[4]}`;
			if (m[1] === 'sent') {
				expect.set(key, { unknown: true });	// until its answer, if any, comes
				continue;
			}
			m.shift();
			acks++;
			if (m[1] === 'insert') expect.set(key, { present: true, n: Number(m[4]) });
			else if (m[1] === 'delete') expect.set(key, { present: false });
			else expect.set(key, { present: true, n: Number(m[4]), counter: true });
		}
	}
	let bad = 0;
	for (const [key, e] of expect) {
		if (e.unknown) continue;
		const got = stored.get(key);
		const name = key.replace('\u0000', '/');
		let why = null;
		if (!e.present && got !== undefined) why = 'deleted (acknowledged) but present';
		else if (e.present && got === undefined) why = 'acknowledged but missing';
		else if (e.present && e.counter && got < e.n) why = `counter ${got} < acknowledged ${e.n}`;
		else if (e.present && !e.counter && got !== e.n) why = `n ${got} != ${e.n}`;
		if (why && bad++ < 20) console.log(`not ok - ${name}: ${why}`);
	}
	const unknown = [...expect.values()].filter((e) => e.unknown).length;
	console.log(`${bad ? "not ok" : "ok"} - ${acks} acknowledged writes checked over ${expect.size - unknown} keys (${unknown} deletions unanswered, not judged), ${bad} violation(s)`);
	process.exit(bad ? 1 : 0);
}

if (mode === 'load') await load(args);
else if (mode === 'check') check(args);
else { console.error('usage: crash_load.mjs load PORT TABLE CLIENT SECONDS MAX_OPS ACKFILE STOPFILE | check ACKFILE... < DUMP'); process.exit(2); }
