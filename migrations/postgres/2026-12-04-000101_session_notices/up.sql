-- Every change of an account's token generation (logout, password change, a reused refresh
-- token) is announced to every node, in the transaction that makes it: `NOTIFY siguo_session`
-- with payload "<account id> <generation>" (src/cluster/notify.rs). Nodes then refuse older
-- access tokens and close the account's older sockets.
CREATE FUNCTION siguo_session_notice() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('siguo_session', NEW.id::text || ' ' || NEW.token_generation::text);
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER accounts_session_notice
    AFTER UPDATE OF token_generation ON accounts
    FOR EACH ROW WHEN (NEW.token_generation IS DISTINCT FROM OLD.token_generation)
    EXECUTE FUNCTION siguo_session_notice();
