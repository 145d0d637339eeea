// scripts/demo.mjs - the SDK half of the demo (scripts/demo.sh): an ordinary @azure/data-tables
// program, pointed at tablestore-gateway by its connection string and nothing else.
//
//   node scripts/demo.mjs PORT      (the gateway on 127.0.0.1:PORT, the development account)
//
// It creates a table, writes typed entities, reads one back, updates it with its ETag, queries
// with a filter and a page size, runs an entity group transaction and shows a failed one leaving
// nothing behind. Every step prints what the service's client saw. The table stays, for SQL to
// read (demo.sh does); a second run starts by dropping it.
import { createRequire } from 'node:module';

// the client pinned by the project's one Node package, test/sdk/package-lock.json
const { TableClient, TableServiceClient, odata } =
	createRequire(new URL('../test/sdk/package.json', import.meta.url))('@azure/data-tables');

const port = process.argv[2] ?? '10002';
// the Azure Storage development account's public, well-known key
const conn = 'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;' +
	'AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;' +
	`TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`;
const opts = { allowInsecureConnection: true };
const service = TableServiceClient.fromConnectionString(conn, opts);
const orders = TableClient.fromConnectionString(conn, 'DemoOrders', opts);
const say = (what, value) => console.log(`${what.padEnd(34)} ${typeof value === 'string' ? value : JSON.stringify(value)}`);

await service.deleteTable('DemoOrders');	// (a 404 is success for this client)
await service.createTable('DemoOrders');
say('created table', 'DemoOrders');

// typed values: Int64 beyond 2^53, a DateTime at 100 ns, a Guid, binary, a Double
await orders.createEntity({
	partitionKey: 'customer-17', rowKey: 'order-0001', Item: 'kettle', Quantity: 2,
	Total: { value: '9007199254740993', type: 'Int64' },
	Placed: { value: '2026-11-23T09:15:00.1234567Z', type: 'DateTime' },
	Tracking: { value: '68260b3f-beab-45e2-b900-33e2b442e724', type: 'Guid' },
	Label: new Uint8Array([0, 1, 2, 255]), Weight: 1.5,
});
const one = await orders.getEntity('customer-17', 'order-0001', { disableTypeConversion: true });
say('read back (types kept)', { Total: one.Total, Placed: one.Placed, Tracking: one.Tracking, Label: one.Label });

// an update that names the version it read: a stale ETag is refused with 412
await orders.updateEntity({ partitionKey: 'customer-17', rowKey: 'order-0001', Quantity: 3 }, 'Merge', { etag: one.etag });
try {
	await orders.updateEntity({ partitionKey: 'customer-17', rowKey: 'order-0001', Quantity: 4 }, 'Merge', { etag: one.etag });
} catch (e) {
	say('update with the old ETag', `${e.statusCode} ${e.details?.errorCode ?? e.code}`);
}

// an entity group transaction: 20 inserts in one partition, all or nothing
await orders.submitTransaction(Array.from({ length: 20 }, (_, i) =>
	['create', { partitionKey: 'customer-42', rowKey: `order-${String(i).padStart(4, '0')}`, Item: 'mug', Quantity: i + 1 }]));
say('transaction of 20 inserts', 'committed');
try {
	await orders.submitTransaction([
		['create', { partitionKey: 'customer-42', rowKey: 'order-0100', Item: 'plate' }],
		['create', { partitionKey: 'customer-42', rowKey: 'order-0003', Item: 'again' }],	// exists
	]);
} catch (e) {
	say('transaction with a duplicate', `${e.statusCode} ${e.code}: ${String(e.message).split('\n')[0].slice(0, 60)}`);
}
say('order-0100 after the failed one', (await orders.listEntities({ queryOptions: { filter: odata`RowKey eq 'order-0100'` } }).byPage().next()).value.length === 0 ? 'absent' : 'present');

// a typed query, read in pages of 5
const pages = orders.listEntities({ queryOptions: { filter: odata`PartitionKey eq 'customer-42' and Quantity ge ${10}`, select: ['RowKey', 'Quantity'] } })
	.byPage({ maxPageSize: 5 });
let n = 0;
for await (const page of pages) {
	say(`page ${++n}`, page.map((e) => `${e.rowKey}:${e.Quantity}`).join(' '));
}
