// bench/copy/sdk_copy.mjs - what a team writes when it has no copy program: the official
// @azure/data-tables client lists a table and upserts what it reads, in transactions of at most
// 100 entities of one partition (the service's limit), one at a time. The baseline tablestore-copy
// is measured against (bench/run.sh copy).
//
//   node sdk_copy.mjs SOURCE_PORT DESTINATION_PORT TABLE     -> prints "entities seconds"
import { table } from '../peers/sdk_table.mjs';

const [srcPort, dstPort, name] = process.argv.slice(2);
const src = table(srcPort, name);
const dst = table(dstPort, name);
try { await dst.createTable(); } catch (e) { if (e.statusCode !== 409) throw e; }
const t0 = process.hrtime.bigint();
let batch = [];
let pk = null;
let n = 0;
const flush = async () => {
	if (batch.length) await dst.submitTransaction(batch);
	n += batch.length;
	batch = [];
};
for await (const e of src.listEntities()) {
	const { etag, timestamp, ...entity } = e;
	if (pk !== null && (entity.partitionKey !== pk || batch.length === 100)) await flush();
	pk = entity.partitionKey;
	batch.push(['upsert', entity, 'Replace']);
}
await flush();
console.log(`${n} ${Number(process.hrtime.bigint() - t0) / 1e9}`);
