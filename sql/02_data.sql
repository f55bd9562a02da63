-- Deterministic content: every value is a function of the row number n (1..300).
-- A few rows carry < > & " ' \ and non-ASCII UTF-8 so that every renderer's escaping is exercised.
USE sampledb;
SET NAMES utf8mb4;

INSERT INTO products (id, name, price)
WITH RECURSIVE seq (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 300)
SELECT n,
       CASE n
           WHEN 7   THEN 'Bolts <M6> & nuts'
           WHEN 42  THEN 'Rope 3/8" ''marine'''
           WHEN 99  THEN 'Path C:\\tools\\bin'
           WHEN 150 THEN 'Crème brûlée set'
           WHEN 210 THEN 'Teekanne 日本 🍵'
           ELSE CONCAT(ELT(1 + n % 6, 'Widget', 'Gadget', 'Sprocket', 'Gizmo', 'Bracket', 'Valve'),
                       ' ', n)
       END,
       ((n * 7919) % 50000) / 100 + 0.99
FROM seq;

INSERT INTO orders (id, placed, note)
WITH RECURSIVE seq (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 300)
SELECT n,
       DATE '2010-01-01' + INTERVAL (n * 13) DAY,
       CASE
           WHEN n = 3   THEN 'For O''Brien & Sons'
           WHEN n = 64  THEN 'Zoë Müller-Łukasiewicz, café au lait ☕, invoice in €'
           WHEN n = 128 THEN '<script>alert("x")</script>'
           WHEN n = 256 THEN 'Ship to \\\\fileserver\\dock "B"'
           WHEN n % 25 = 0 THEN CONCAT('Key account since ', 2010 + n % 13, '; call before shipping.')
           ELSE NULL
       END
FROM seq;
