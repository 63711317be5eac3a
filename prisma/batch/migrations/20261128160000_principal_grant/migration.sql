-- The gateway's signed grant to act as the key that made a batch (issue 35 item 6): the batch
-- service passes it on with every call its lines make; without it inference refuses them.

-- AlterTable
ALTER TABLE "batches" ADD COLUMN     "principal_grant" TEXT;
