// cases/paging.mjs - paging through thousands of entities with byPage({maxPageSize}) and
// continuation tokens, including a token resumed in a new iterator. Entities are loaded with
// batches. --scale small uses 1 200 entities instead of 5 000.
import { odata } from '@azure/data-tables';
import { deepEq, eq, fail, ok, test } from '../lib/harness.mjs';

const PG = 'doc: Query timeout and pagination: at most 1,000 items per response, continuation headers to resume; a page may be short or even empty and still carry a continuation';

function size(ctx) {
	return ctx.scale === 'small' ? 1200 : 5000;
}

// n entities over 3 partitions, keys zero-padded so that key order is index order
function entities(n) {
	const per = Math.ceil(n / 3);
	return Array.from({ length: n }, (_, i) => ({
		partitionKey: `part${Math.floor(i / per)}`, rowKey: String(i).padStart(6, '0'), i, seven: i % 7 === 0,
	}));
}

const id = (e) => `${e.partitionKey}/${e.rowKey}`;

function checkAll(seen, want, what) {
	if (seen.length !== want.length) {
		const s = new Set(seen);
		const missing = want.filter((k) => !s.has(k));
		fail(`${what}: ${seen.length} entities, expected ${want.length} (${new Set(seen).size} distinct; first missing ${missing.slice(0, 3).join(', ')})`);
	}
	deepEq(seen, want, `${what}: entities in key order, none repeated or skipped`);
}

test('paging.scan', 'a table scan pages with maxPageSize 1000: pages of at most 1000, every entity once, in order',
	PG, async (ctx) => {
		const n = size(ctx);
		const all = entities(n);
		const tc = await ctx.newTable();
		await ctx.load(tc, all);
		const seen = [];
		const sizes = [];
		for await (const page of tc.listEntities().byPage({ maxPageSize: 1000 })) {
			sizes.push(page.length);
			seen.push(...page.map(id));
			if (sizes.length > 200) fail('more than 200 pages');
		}
		ok(sizes.every((s) => s <= 1000), `page sizes at most 1000 (${sizes.join(',')})`);
		checkAll(seen, all.map(id), 'scan');
		ctx.note(`pages: ${sizes.join(',')}`);
	}, { timeoutMs: 180_000 });

test('paging.default-page-size', 'without $top a page holds at most 1000 entities and a continuation follows',
	PG, async (ctx) => {
		const n = Math.min(size(ctx), 1500);
		const all = entities(n).map((e) => ({ ...e, partitionKey: 'one' }));
		const tc = await ctx.newTable();
		await ctx.load(tc, all);
		const it = tc.listEntities().byPage();
		const first = (await it.next()).value;
		ok(first.length <= 1000 && first.length > 0, `first page holds 1..1000 entities (got ${first.length})`);
		ok(first.continuationToken, 'a continuation follows the first page');
		let total = first.length;
		for await (const page of tc.listEntities().byPage({ continuationToken: first.continuationToken })) total += page.length;
		eq(total, n, 'entities over all pages');
	}, { timeoutMs: 180_000 });

test('paging.resume-new-iterator', 'a continuation token from one iterator resumes the query in a new iterator',
	`${PG}; contract §5 (continuations are durable and stateless)`, async (ctx) => {
		const n = size(ctx);
		const all = entities(n);
		const tc = await ctx.newTable();
		await ctx.load(tc, all);
		const pageSize = Math.min(700, Math.floor(n / 4));
		const it = tc.listEntities().byPage({ maxPageSize: pageSize });
		const seen = [];
		let token;
		for (let k = 0; k < 2; k++) {
			const page = (await it.next()).value;
			seen.push(...page.map(id));
			token = page.continuationToken;
		}
		ok(token, 'a continuation after two pages');
		// a different client object, as a process that stored the token would have
		const other = ctx.client(tc.tableName);
		for await (const page of other.listEntities().byPage({ maxPageSize: pageSize, continuationToken: token })) seen.push(...page.map(id));
		checkAll(seen, all.map(id), 'two pages, then the rest from the stored token');
	}, { timeoutMs: 180_000 });

test('paging.filtered-small-pages', 'a filtered query with small pages returns exactly the matches, in order',
	`${PG}; doc: Query Entities with $filter and $top`, async (ctx) => {
		const n = Math.min(size(ctx), 2100);
		const all = entities(n);
		const tc = await ctx.newTable();
		await ctx.load(tc, all);
		const want = all.filter((e) => e.seven).map(id);
		const seen = [];
		let pages = 0;
		for await (const page of tc.listEntities({ queryOptions: { filter: odata`seven eq ${true}` } }).byPage({ maxPageSize: 50 })) {
			ok(page.length <= 50, `page of ${page.length} > 50`);
			seen.push(...page.map(id));
			if (++pages > 500) fail('more than 500 pages');
		}
		checkAll(seen, want, 'matches');
	}, { timeoutMs: 180_000 });
