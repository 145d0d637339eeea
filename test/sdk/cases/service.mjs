// cases/service.mjs - the account's service resources: Get/Set Table Service Properties (logging,
// metrics, CORS rules) stored and merged; CORS preflight and actual requests by those rules; the
// calls a storage browser makes when it opens an account (properties, tables), with the account
// key and with an account SAS.
import { AzureSASCredential, TableClient, TableServiceClient, generateAccountSas } from '@azure/data-tables';
import { accepts, deepEq, eq, ok, rejects, test } from '../lib/harness.mjs';

const PROPS = 'doc: Set Table Service Properties / Get Table Service Properties';
const CORS = 'doc: Cross-Origin Resource Sharing (CORS) support for Azure Storage';

const ALL_OFF = {
	logging: { version: '1.0', delete: false, read: false, write: false, retentionPolicy: { enabled: false } },
	hourMetrics: { version: '1.0', enabled: false, retentionPolicy: { enabled: false } },
	minuteMetrics: { version: '1.0', enabled: false, retentionPolicy: { enabled: false } },
	cors: [],
};

// the properties are the account's: cases that set them restore them and run one at a time
let chain = Promise.resolve();
function serially(fn) {
	const run = chain.then(fn, fn);
	chain = run.catch(() => {});
	return run;
}

test('service.properties-roundtrip', 'setProperties stores logging, metrics and CORS rules; getProperties returns them; a Set naming only CORS keeps the rest',
	`${PROPS}: the elements a request leaves out keep their values; at most five CORS rules`, (ctx) => serially(async () => {
		const svc = ctx.svc;
		try {
			await svc.setProperties({
				logging: { version: '1.0', delete: true, read: false, write: true, retentionPolicy: { enabled: true, days: 7 } },
				hourMetrics: { version: '1.0', enabled: true, includeAPIs: true, retentionPolicy: { enabled: true, days: 3 } },
				minuteMetrics: { version: '1.0', enabled: false, retentionPolicy: { enabled: false } },
				cors: [{ allowedOrigins: 'http://a.example,http://b.example', allowedMethods: 'GET,PUT', allowedHeaders: 'x-ms-meta-*,content-type',
					exposedHeaders: 'x-ms-request-id', maxAgeInSeconds: 300 }],
			});
			const p = await svc.getProperties();
			eq(p.logging?.delete, true, 'logging.delete');
			eq(p.logging?.write, true, 'logging.write');
			eq(p.logging?.retentionPolicy?.days, 7, 'logging retention days');
			eq(p.hourMetrics?.enabled, true, 'hourMetrics.enabled');
			eq(p.hourMetrics?.includeAPIs, true, 'hourMetrics.includeAPIs');
			eq(p.minuteMetrics?.enabled, false, 'minuteMetrics.enabled');
			eq(p.cors?.length, 1, 'CORS rules');
			eq(p.cors?.[0]?.allowedOrigins, 'http://a.example,http://b.example', 'allowedOrigins');
			eq(p.cors?.[0]?.maxAgeInSeconds, 300, 'maxAgeInSeconds');
			// only CORS: logging and metrics stay
			await svc.setProperties({ cors: [{ allowedOrigins: '*', allowedMethods: 'GET', allowedHeaders: '', exposedHeaders: '', maxAgeInSeconds: 0 }] });
			const q = await svc.getProperties();
			eq(q.logging?.delete, true, 'logging after a Set of CORS alone');
			eq(q.cors?.[0]?.allowedOrigins, '*', 'the new CORS rule');
			await rejects(svc.setProperties({ cors: Array.from({ length: 6 }, () => ({ allowedOrigins: '*', allowedMethods: 'GET', allowedHeaders: '', exposedHeaders: '', maxAgeInSeconds: 1 })) }),
				{ status: 400 }, 'six CORS rules');
			await rejects(svc.setProperties({ logging: { version: '1.0', delete: true, read: true, write: true, retentionPolicy: { enabled: true, days: 400 } } }),
				{ status: 400 }, 'a retention of 400 days');
			await rejects(svc.setProperties({ cors: [{ allowedOrigins: '*', allowedMethods: 'FETCH', allowedHeaders: '', exposedHeaders: '', maxAgeInSeconds: 1 }] }),
				{ status: 400 }, 'a method CORS does not know');
			eq((await svc.getProperties()).cors?.[0]?.allowedOrigins, '*', 'the rules after the refused Sets');
		} finally {
			await svc.setProperties(ALL_OFF);
		}
	}));

// a preflight: OPTIONS with Origin and Access-Control-Request-*, unsigned
function preflight(ctx, path, origin, method, headers) {
	const h = { Origin: origin, 'Access-Control-Request-Method': method };
	if (headers) h['Access-Control-Request-Headers'] = headers;
	return ctx.raw.request({ method: 'OPTIONS', path, auth: 'none', headers: h });
}

test('raw.cors', 'CORS: a preflight matching a rule is 200 with the Allow headers, any other is 403 CorsPreflightFailure; actual requests carry Allow-Origin only for allowed origins',
	`${CORS}: rules match origin, method and request headers in order; the first match answers; without a match the preflight fails and actual requests get no CORS headers`, (ctx) => serially(async () => {
		const svc = ctx.svc;
		const tc = await ctx.newTable('cors');
		try {
			const none = await preflight(ctx, `${tc.tableName}()`, 'http://app.example', 'GET');
			eq(none.status, 403, 'a preflight before any rule');
			eq(none.code, 'CorsPreflightFailure', 'its code');
			await svc.setProperties({ cors: [
				{ allowedOrigins: 'http://app.example', allowedMethods: 'GET,PUT,MERGE', allowedHeaders: 'x-ms-*,content-type', exposedHeaders: 'x-ms-request-id,etag', maxAgeInSeconds: 300 },
				{ allowedOrigins: '*', allowedMethods: 'GET', allowedHeaders: '', exposedHeaders: '', maxAgeInSeconds: 60 },
			] });
			const good = await preflight(ctx, `${tc.tableName}()`, 'http://App.example', 'PUT', 'x-ms-date, Content-Type');
			eq(good.status, 200, 'an allowed preflight');
			eq(good.headers['access-control-allow-origin'], 'http://App.example', 'Allow-Origin echoes the origin');
			eq(good.headers['access-control-allow-methods'], 'PUT', 'Allow-Methods');
			eq(good.headers['access-control-allow-headers'], 'x-ms-date, Content-Type', 'Allow-Headers');
			eq(good.headers['access-control-max-age'], '300', 'Max-Age');
			const star = await preflight(ctx, 'Tables', 'http://other.example', 'GET');
			eq(star.status, 200, 'the "*" rule for another origin');
			eq(star.headers['access-control-allow-origin'], '*', 'Allow-Origin of the "*" rule');
			eq(star.headers['access-control-max-age'], '60', 'Max-Age of the "*" rule');
			for (const [what, origin, method, headers] of [
				['another origin, PUT', 'http://other.example', 'PUT'],
				['a method no rule allows', 'http://app.example', 'DELETE'],
				['a header no rule allows', 'http://app.example', 'PUT', 'x-custom'],
				['a header for the "*" rule', 'http://other.example', 'GET', 'x-ms-date'],
			]) {
				const res = await preflight(ctx, `${tc.tableName}()`, origin, method, headers);
				eq(res.status, 403, `${what}: status`);
				eq(res.code, 'CorsPreflightFailure', `${what}: code`);
				ok(res.headers['access-control-allow-origin'] === undefined, `${what}: no Allow-Origin`);
			}
			const bare = await ctx.raw.request({ method: 'OPTIONS', path: 'Tables', auth: 'none', headers: { Origin: 'http://app.example' } });
			eq(bare.status, 400, 'a preflight without Access-Control-Request-Method');
			// actual requests (signed)
			const actual = await ctx.raw.request({ path: `${tc.tableName}()`, headers: { Origin: 'http://app.example' } });
			eq(actual.status, 200, 'a query with Origin');
			eq(actual.headers['access-control-allow-origin'], 'http://app.example', 'Allow-Origin on the answer');
			eq(actual.headers['access-control-expose-headers'], 'x-ms-request-id,etag', 'Expose-Headers');
			const missing = await ctx.raw.request({ path: `${tc.tableName}(PartitionKey='a',RowKey='b')`, headers: { Origin: 'http://app.example' } });
			eq(missing.status, 404, 'a failing request with Origin');
			eq(missing.headers['access-control-allow-origin'], 'http://app.example', 'Allow-Origin on an error answer');
			const del = await ctx.raw.request({ method: 'DELETE', path: `${tc.tableName}(PartitionKey='a',RowKey='b')`, headers: { Origin: 'http://other.example', 'If-Match': '*' } });
			ok(del.headers['access-control-allow-origin'] === undefined, 'no Allow-Origin for a method the origin\'s rules do not allow');
			// rules removed: preflights fail again at once
			await svc.setProperties({ cors: [] });
			eq((await preflight(ctx, `${tc.tableName}()`, 'http://app.example', 'GET')).status, 403, 'a preflight after the rules were removed');
		} finally {
			await svc.setProperties(ALL_OFF);
		}
	}));

test('raw.properties-xml', 'Set Table Service Properties refuses a malformed document with 400 and keeps the stored one',
	`${PROPS}: the body is a StorageServiceProperties document; *Common REST API error codes*: InvalidXmlDocument`, (ctx) => serially(async () => {
		const put = (body) => ctx.raw.request({ method: 'PUT', path: '', query: 'restype=service&comp=properties', body, headers: { 'Content-Type': 'application/xml' } });
		try {
			const okRes = await put('<?xml version="1.0" encoding="utf-8"?>\n<StorageServiceProperties>\n  <Cors>\n    <CorsRule><AllowedOrigins>http://x.example</AllowedOrigins><AllowedMethods>GET</AllowedMethods><MaxAgeInSeconds>5</MaxAgeInSeconds><AllowedHeaders/><ExposedHeaders/></CorsRule>\n  </Cors>\n</StorageServiceProperties>');
			eq(okRes.status, 202, 'a valid document');
			for (const [what, body] of [
				['not XML', 'nope'],
				['an empty body', ''],
				['another root', '<ServiceProperties/>'],
				['an unknown element', '<StorageServiceProperties><Colors/></StorageServiceProperties>'],
				['a rule without AllowedOrigins', '<StorageServiceProperties><Cors><CorsRule><AllowedMethods>GET</AllowedMethods><MaxAgeInSeconds>5</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>'],
				['a negative max age', '<StorageServiceProperties><Cors><CorsRule><AllowedOrigins>*</AllowedOrigins><AllowedMethods>GET</AllowedMethods><MaxAgeInSeconds>-1</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>'],
				['Version 2.0', '<StorageServiceProperties><HourMetrics><Version>2.0</Version><Enabled>false</Enabled></HourMetrics></StorageServiceProperties>'],
				['IncludeAPIs without Enabled', '<StorageServiceProperties><HourMetrics><Enabled>false</Enabled><IncludeAPIs>true</IncludeAPIs></HourMetrics></StorageServiceProperties>'],
				['an attribute', '<StorageServiceProperties a="1"/>'],
			]) {
				const res = await put(body);
				eq(res.status, 400, `${what}: status`);
			}
			const get = await ctx.raw.request({ path: '', query: 'restype=service&comp=properties' });
			eq(get.status, 200, 'Get Table Service Properties');
			ok(get.text.includes('<AllowedOrigins>http://x.example</AllowedOrigins>'), 'the stored rule survived the refused Sets');
			ok(get.headers['content-type']?.startsWith('application/xml'), `Content-Type ${get.headers['content-type']}`);
		} finally {
			await ctx.svc.setProperties(ALL_OFF);
		}
	}));

test('service.explorer-startup', 'a storage browser opening the account: service properties, tables and a table\'s first page, with the account key and with an account SAS',
	`${PROPS}; doc: Query Tables; doc: Create an account SAS: srt s for the service, c for tables, o for entities`, async (ctx) => {
		const tc = await ctx.newTable('explorer');
		await tc.createEntity({ partitionKey: 'p', rowKey: 'r', v: 1 });
		const open = async (svc, what) => {
			const props = await accepts(svc.getProperties(), `${what}: Get Table Service Properties`);
			ok(props && 'cors' in props, `${what}: properties have CORS`);
			const names = [];
			for await (const t of svc.listTables()) names.push(t.name);
			ok(names.includes(tc.tableName), `${what}: the table is listed`);
			const first = await svc.listTables().byPage({ maxPageSize: 1 }).next();
			eq(first.value.length, 1, `${what}: a page of one table`);
		};
		await open(ctx.svc, 'account key');
		const sas = generateAccountSas(ctx.credential, { expiresOn: new Date(Date.now() + 3600_000), resourceTypes: 'sco',
			permissions: { query: true, list: true } });
		const viaSas = new TableServiceClient(ctx.endpoint, new AzureSASCredential(sas), ctx.clientOptions);
		await open(viaSas, 'account SAS');
		const c = new TableClient(ctx.endpoint, tc.tableName, new AzureSASCredential(sas), ctx.clientOptions);
		const page = await c.listEntities().byPage({ maxPageSize: 100 }).next();
		deepEq(page.value.map((e) => e.rowKey), ['r'], 'account SAS: the table\'s first page');
	});

test('raw.service-stats-secondary', 'Get Table Service Stats on the secondary endpoint (<account>-secondary) answers the replication status',
	'doc: Get Table Service Stats: available on the secondary location endpoint, the account name suffixed -secondary; contract §12', async (ctx) => {
		const base = ctx.raw.basePath;
		if (!base) return ctx.note('host-style endpoint: the secondary is another host');
		const res = await ctx.raw.request({ rawPath: `${base}-secondary/`, query: 'restype=service&comp=stats' });
		eq(res.status, 200, 'status');
		ok(/<StorageServiceStats><GeoReplication><Status>(live|bootstrap|unavailable)<\/Status><LastSyncTime>[^<]*<\/LastSyncTime><\/GeoReplication><\/StorageServiceStats>/.test(res.text),
			`the document: ${res.text.slice(0, 200)}`);
		// the SDK's getStatistics makes the host's first label <account>-secondary: with a
		// path-style endpoint the client is given the -secondary endpoint itself
		const secondary = new TableServiceClient(`${ctx.endpoint}-secondary`, ctx.credential, ctx.clientOptions);
		const stats = await secondary.getStatistics();
		eq(stats.geoReplication?.status, 'live', 'the SDK\'s getStatistics');
	});
