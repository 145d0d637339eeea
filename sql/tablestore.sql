-- tablestore install script (source of sql/tablestore--<version>.sql, see Makefile).
-- Every object lives in schema tablestore; every reference is schema-qualified and every SQL or
-- PL/pgSQL function pins its search_path, so a hostile search_path cannot redirect a call.

\echo Use "CREATE EXTENSION tablestore" to load this file. \quit

--------------------------------------------------------------------------------------------------
-- Errors
--------------------------------------------------------------------------------------------------

CREATE FUNCTION tablestore.error_codes(OUT sqlstate text, OUT code text, OUT description text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tablestore_error_codes'
LANGUAGE C STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tablestore.error_codes() IS
'Every error tablestore raises: its SQLSTATE, the Azure Table service error code that starts the message, and what it means';

--------------------------------------------------------------------------------------------------
-- The entity type
--------------------------------------------------------------------------------------------------

CREATE TYPE tablestore.entity;

CREATE FUNCTION tablestore.entity_in(cstring) RETURNS tablestore.entity
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.entity_out(tablestore.entity) RETURNS cstring
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.entity_recv(internal) RETURNS tablestore.entity
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.entity_send(tablestore.entity) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE tablestore.entity (
	INPUT = tablestore.entity_in,
	OUTPUT = tablestore.entity_out,
	RECEIVE = tablestore.entity_recv,
	SEND = tablestore.entity_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);

COMMENT ON TYPE tablestore.entity IS
'A schemaless set of typed properties (Edm.String, Int32, Int64, Double, Boolean, DateTime, Guid, Binary), optionally with PartitionKey and RowKey; text form is the Azure JSON payload';

-- Casts to and from jsonb (explicit only).
CREATE FUNCTION tablestore.entity_to_jsonb(tablestore.entity) RETURNS jsonb
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.jsonb_to_entity(jsonb) RETURNS tablestore.entity
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE CAST (tablestore.entity AS jsonb) WITH FUNCTION tablestore.entity_to_jsonb(tablestore.entity);
CREATE CAST (jsonb AS tablestore.entity) WITH FUNCTION tablestore.jsonb_to_entity(jsonb);

-- The binary wire form as bytea (what send/recv and binary COPY carry).
CREATE FUNCTION tablestore.entity_to_binary(tablestore.entity) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.entity_from_binary(bytea) RETURNS tablestore.entity
AS 'MODULE_PATHNAME', 'entity_from_binary_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

--------------------------------------------------------------------------------------------------
-- Typed accessors: NULL when the property is absent or of another type
--------------------------------------------------------------------------------------------------

CREATE FUNCTION tablestore.prop_type(tablestore.entity, text) RETURNS text
AS 'MODULE_PATHNAME', 'entity_prop_type' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.prop_string(tablestore.entity, text) RETURNS text
AS 'MODULE_PATHNAME', 'entity_prop_string' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.prop_int32(tablestore.entity, text) RETURNS int4
AS 'MODULE_PATHNAME', 'entity_prop_int32' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.prop_int64(tablestore.entity, text) RETURNS int8
AS 'MODULE_PATHNAME', 'entity_prop_int64' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.prop_double(tablestore.entity, text) RETURNS float8
AS 'MODULE_PATHNAME', 'entity_prop_double' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.prop_bool(tablestore.entity, text) RETURNS bool
AS 'MODULE_PATHNAME', 'entity_prop_bool' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.prop_datetime(tablestore.entity, text) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'entity_prop_datetime' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.prop_guid(tablestore.entity, text) RETURNS uuid
AS 'MODULE_PATHNAME', 'entity_prop_guid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.prop_binary(tablestore.entity, text) RETURNS bytea
AS 'MODULE_PATHNAME', 'entity_prop_binary' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.entity_size(tablestore.entity) RETURNS int4
AS 'MODULE_PATHNAME', 'entity_service_size_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tablestore.entity_size(tablestore.entity) IS
'Size by the service formula that the 1 MiB EntityTooLarge limit uses';

--------------------------------------------------------------------------------------------------
-- Operators: ? (has property), || (merge, right side wins), - (remove a property)
--------------------------------------------------------------------------------------------------

CREATE FUNCTION tablestore.entity_exists(tablestore.entity, text) RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.entity_concat(tablestore.entity, tablestore.entity) RETURNS tablestore.entity
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tablestore.entity_delete(tablestore.entity, text) RETURNS tablestore.entity
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR tablestore.? (
	LEFTARG = tablestore.entity, RIGHTARG = text, FUNCTION = tablestore.entity_exists,
	RESTRICT = contsel, JOIN = contjoinsel
);

CREATE OPERATOR tablestore.|| (
	LEFTARG = tablestore.entity, RIGHTARG = tablestore.entity, FUNCTION = tablestore.entity_concat
);

CREATE OPERATOR tablestore.- (
	LEFTARG = tablestore.entity, RIGHTARG = text, FUNCTION = tablestore.entity_delete
);

--------------------------------------------------------------------------------------------------
-- Equality, a total order over the canonical bytes, and hashing
--------------------------------------------------------------------------------------------------

CREATE FUNCTION tablestore.entity_eq(tablestore.entity, tablestore.entity) RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION tablestore.entity_ne(tablestore.entity, tablestore.entity) RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION tablestore.entity_lt(tablestore.entity, tablestore.entity) RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION tablestore.entity_le(tablestore.entity, tablestore.entity) RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION tablestore.entity_gt(tablestore.entity, tablestore.entity) RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION tablestore.entity_ge(tablestore.entity, tablestore.entity) RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION tablestore.entity_cmp(tablestore.entity, tablestore.entity) RETURNS int4
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION tablestore.entity_hash(tablestore.entity) RETURNS int4
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION tablestore.entity_hash_extended(tablestore.entity, int8) RETURNS int8
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR tablestore.= (
	LEFTARG = tablestore.entity, RIGHTARG = tablestore.entity, FUNCTION = tablestore.entity_eq,
	COMMUTATOR = OPERATOR(tablestore.=), NEGATOR = OPERATOR(tablestore.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR tablestore.<> (
	LEFTARG = tablestore.entity, RIGHTARG = tablestore.entity, FUNCTION = tablestore.entity_ne,
	COMMUTATOR = OPERATOR(tablestore.<>), NEGATOR = OPERATOR(tablestore.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR tablestore.< (
	LEFTARG = tablestore.entity, RIGHTARG = tablestore.entity, FUNCTION = tablestore.entity_lt,
	COMMUTATOR = OPERATOR(tablestore.>), NEGATOR = OPERATOR(tablestore.>=),
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR tablestore.<= (
	LEFTARG = tablestore.entity, RIGHTARG = tablestore.entity, FUNCTION = tablestore.entity_le,
	COMMUTATOR = OPERATOR(tablestore.>=), NEGATOR = OPERATOR(tablestore.>),
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR tablestore.> (
	LEFTARG = tablestore.entity, RIGHTARG = tablestore.entity, FUNCTION = tablestore.entity_gt,
	COMMUTATOR = OPERATOR(tablestore.<), NEGATOR = OPERATOR(tablestore.<=),
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR tablestore.>= (
	LEFTARG = tablestore.entity, RIGHTARG = tablestore.entity, FUNCTION = tablestore.entity_ge,
	COMMUTATOR = OPERATOR(tablestore.<=), NEGATOR = OPERATOR(tablestore.<),
	RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS tablestore.entity_ops DEFAULT FOR TYPE tablestore.entity USING btree AS
	OPERATOR 1 tablestore.< ,
	OPERATOR 2 tablestore.<= ,
	OPERATOR 3 tablestore.= ,
	OPERATOR 4 tablestore.>= ,
	OPERATOR 5 tablestore.> ,
	FUNCTION 1 tablestore.entity_cmp(tablestore.entity, tablestore.entity);

CREATE OPERATOR CLASS tablestore.entity_hash_ops DEFAULT FOR TYPE tablestore.entity USING hash AS
	OPERATOR 1 tablestore.= ,
	FUNCTION 1 tablestore.entity_hash(tablestore.entity),
	FUNCTION 2 tablestore.entity_hash_extended(tablestore.entity, int8);
