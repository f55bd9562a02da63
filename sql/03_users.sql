-- The servers connect as a read-only user: SELECT on the sample database and nothing else.
-- Host '%' covers TCP from 127.0.0.1; 'localhost' covers the unix socket.
CREATE USER IF NOT EXISTS 'bench'@'localhost' IDENTIFIED BY 'bench';
CREATE USER IF NOT EXISTS 'bench'@'%' IDENTIFIED BY 'bench';
GRANT SELECT ON sampledb.* TO 'bench'@'localhost';
GRANT SELECT ON sampledb.* TO 'bench'@'%';
