DROP TRIGGER accounts_session_notice ON accounts;
DROP FUNCTION siguo_session_notice();
