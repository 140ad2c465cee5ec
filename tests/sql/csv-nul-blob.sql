-- args: --format csv -
-- A NUL byte in text is kept and its field quoted; the empty blob is "",
-- not the empty field of NULL; a blob is hex.
SELECT 'a' || char(0) || 'b' AS nul, x'' AS empty_blob, NULL AS null_value,
       '' AS empty_text, x'00ff' AS blob;
