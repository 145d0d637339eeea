-- tablestore upgrade script from 0.1.0 to 0.2.0. Every change made to tablestore.sql since 0.1.0
-- is made here too; the regression test sql/extension.sql checks that 0.1.0 plus this script
-- gives the same objects as a fresh install.

\echo Use "ALTER EXTENSION tablestore UPDATE TO '0.2.0'" to load this file. \quit
