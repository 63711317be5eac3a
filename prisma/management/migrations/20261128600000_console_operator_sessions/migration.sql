-- Operators' console sessions (issue 32, ADR 0143): the operator is no user and has no key of a
-- workspace, so a session is a row, checked on every call and deleted by logout. Additive only.

CREATE TABLE "console_operator_sessions" (
    "hash" CHAR(64) NOT NULL,
    "operator" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "console_operator_sessions_pkey" PRIMARY KEY ("hash")
);

CREATE INDEX "console_operator_sessions_operator_idx" ON "console_operator_sessions"("operator");
