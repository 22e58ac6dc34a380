-- MD5 where md5() is off. Here MD5 defines id formats (the sequential
-- window base, the Hot Guid machine bytes), not security, but a server
-- whose OpenSSL runs with FIPS algorithms only (Azure's can) refuses
-- md5(). locality_uuid_md5 uses md5() when it works and otherwise this
-- RFC 1321 implementation in PL/pgSQL (tens of microseconds a call, paid
-- once per window per session and once per locality_uuid_set_node).

CREATE OR REPLACE FUNCTION locality_uuid_md5_plpgsql(message pg_catalog.bytea) RETURNS pg_catalog.text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    -- Per-round shift amounts and the constants floor(abs(sin(i + 1)) * 2^32).
    shifts int4[] := '{7,12,17,22,7,12,17,22,7,12,17,22,7,12,17,22,5,9,14,20,5,9,14,20,5,9,14,20,5,9,14,20,
                       4,11,16,23,4,11,16,23,4,11,16,23,4,11,16,23,6,10,15,21,6,10,15,21,6,10,15,21,6,10,15,21}';
    k int8[] := '{3614090360,3905402710,606105819,3250441966,4118548399,1200080426,2821735955,4249261313,
                  1770035416,2336552879,4294925233,2304563134,1804603682,4254626195,2792965006,1236535329,
                  4129170786,3225465664,643717713,3921069994,3593408605,38016083,3634488961,3889429448,
                  568446438,3275163606,4107603335,1163531501,2850285829,4243563512,1735328473,2368359562,
                  4294588738,2272392833,1839030562,4259657740,2763975236,1272893353,4139469664,3200236656,
                  681279174,3936430074,3572445317,76029189,3654602809,3873151461,530742520,3299628645,
                  4096336452,1126891415,2878612391,4237533241,1700485571,2399980690,4293915773,2240044497,
                  1873313359,4264355552,2734768916,1309151649,4149444226,3174756917,718787259,3951481745}';
    mask int8 := 4294967295;
    bits int8 := length(message)::int8 * 8;
    padded bytea;
    words int8[];
    h int8[] := '{1732584193,4023233417,2562383102,271733878}';
    a int8; b int8; c int8; d int8; f int8; g int4; t int8;
    digest text := '';
BEGIN
    -- 0x80, zeros to 56 bytes mod 64, the length in bits (64-bit little-endian).
    padded := message || '\x80'::bytea
              || decode(repeat('00', (55 - length(message) % 64 + 64) % 64), 'hex');
    FOR i IN 0..7 LOOP
        padded := padded || set_byte('\x00'::bytea, 0, ((bits >> (8 * i)) & 255)::int4);
    END LOOP;
    FOR chunk IN 0..length(padded) / 64 - 1 LOOP
        words := '{}';
        FOR j IN 0..15 LOOP
            words := words || (get_byte(padded, chunk * 64 + j * 4)::int8
                               | (get_byte(padded, chunk * 64 + j * 4 + 1)::int8 << 8)
                               | (get_byte(padded, chunk * 64 + j * 4 + 2)::int8 << 16)
                               | (get_byte(padded, chunk * 64 + j * 4 + 3)::int8 << 24));
        END LOOP;
        a := h[1]; b := h[2]; c := h[3]; d := h[4];
        FOR i IN 0..63 LOOP
            IF i < 16 THEN
                f := (b & c) | ((b # mask) & d);
                g := i;
            ELSIF i < 32 THEN
                f := (d & b) | ((d # mask) & c);
                g := (5 * i + 1) % 16;
            ELSIF i < 48 THEN
                f := b # c # d;
                g := (3 * i + 5) % 16;
            ELSE
                f := c # (b | (d # mask));
                g := (7 * i) % 16;
            END IF;
            t := (f + a + k[i + 1] + words[g + 1]) & mask;
            a := d;
            d := c;
            c := b;
            b := (b + (((t << shifts[i + 1]) | (t >> (32 - shifts[i + 1]))) & mask)) & mask;
        END LOOP;
        h[1] := (h[1] + a) & mask;
        h[2] := (h[2] + b) & mask;
        h[3] := (h[3] + c) & mask;
        h[4] := (h[4] + d) & mask;
    END LOOP;
    -- Each word little-endian.
    FOR i IN 1..4 LOOP
        FOR j IN 0..3 LOOP
            digest := digest || lpad(to_hex((h[i] >> (8 * j)) & 255), 2, '0');
        END LOOP;
    END LOOP;
    RETURN digest;
END
$$;
COMMENT ON FUNCTION locality_uuid_md5_plpgsql(pg_catalog.bytea) IS
    'SQL edition: the MD5 of message as 32 hex digits, in PL/pgSQL (RFC 1321), for servers where md5() is off';

-- md5() of the text's UTF-8 bytes, or the PL/pgSQL MD5 where md5() fails.
-- PARALLEL UNSAFE: catching md5()'s error takes a subtransaction, which
-- no process may start while a query runs in parallel (its leader
-- included).
CREATE OR REPLACE FUNCTION locality_uuid_md5(message pg_catalog.text) RETURNS pg_catalog.text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL UNSAFE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN md5(convert_to(message, 'UTF8'));
EXCEPTION WHEN OTHERS THEN
    RETURN @extschema@.locality_uuid_md5_plpgsql(convert_to(message, 'UTF8'));
END
$$;
COMMENT ON FUNCTION locality_uuid_md5(pg_catalog.text) IS
    'SQL edition: md5() of the text''s UTF-8 bytes, computed in PL/pgSQL where md5() is off (FIPS)';
