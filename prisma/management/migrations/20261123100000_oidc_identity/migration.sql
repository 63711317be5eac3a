-- Personal identities by OIDC login (ADR 0037): when the pair was linked, and the logins in progress.

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "oidc_linked_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "oidc_login_states" (
    "state" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "code_verifier" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oidc_login_states_pkey" PRIMARY KEY ("state")
);

-- CreateIndex
CREATE INDEX "oidc_login_states_expires_at_idx" ON "oidc_login_states"("expires_at");

-- AddForeignKey
ALTER TABLE "oidc_login_states" ADD CONSTRAINT "oidc_login_states_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
