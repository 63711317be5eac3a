import { Catch, Logger, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { GatewayError, toRpcError, type RpcErrorPayload } from '@gw/errors';
import { throwError, type Observable } from 'rxjs';

/**
 * Catches everything a message handler throws and sends it over NATS as the one typed
 * error shape. Unexpected errors are logged here with an id and leave the service as a
 * bare 500, so no internal detail crosses the boundary.
 */
@Catch()
export class AllRpcExceptionsFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('RpcExceptions');

  catch(exception: unknown, _host: ArgumentsHost): Observable<RpcErrorPayload> {
    const payload = toRpcError(exception);
    if (!(exception instanceof GatewayError)) {
      const errorId = crypto.randomUUID();
      this.logger.error({ errorId, err: exception }, 'Unhandled error in message handler');
      payload.metadata = { ...payload.metadata, error_id: errorId };
    }
    return throwError(() => payload);
  }
}
