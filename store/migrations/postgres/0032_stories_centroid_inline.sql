-- A story's row with its centroid inline. A centroid of 200 features is
-- some 2.2 kB of floats, which do not compress: over the 2 kB at which
-- PostgreSQL moves long values out of a row, each was kept in the TOAST
-- table, so every read of a candidate story went through the TOAST
-- index to two chunks, and every write of one wrote two chunks and an
-- index entry anew.
ALTER TABLE stories SET (toast_tuple_target = 4096);
