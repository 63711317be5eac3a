import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { chatBodyFromGemini, jsonSchemaOf } from './chat-body-from-gemini.js';
import { GEMINI_REASONING_FORMAT } from './gemini-contents.js';
import { geminiResponseOf } from './gemini-from-completion.js';
import { buildGeminiBody } from './gemini-request.js';
import { normalizeGeminiResponse } from './gemini-response.js';

/** The Gemini codec both ways: a front-door request through chat and back to Gemini keeps what Gemini needs. */
describe('Gemini codec', () => {
  const signature = 'c2lnbmF0dXJl';
  const geminiRequest = {
    model: 'sim/x',
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    contents: [
      { role: 'user', parts: [{ text: 'Weather?' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: signature }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'Sunny' } } }] },
    ],
    tools: [
      {
        functionDeclarations: [
          { name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', nullable: true } } } },
        ],
      },
    ],
    toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
    generationConfig: { maxOutputTokens: 100, thinkingConfig: { thinkingBudget: 512, includeThoughts: true }, stopSequences: ['END'] },
  };

  it('translates a Gemini request to chat and back to the same Gemini request', () => {
    const chat = chatBodyFromGemini(geminiRequest);
    expect(chat).toMatchObject({
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
        { role: 'assistant', tool_calls: [{ id: 'call_1_0', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1_0', content: 'Sunny' },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      max_tokens: 100,
      stop: ['END'],
      reasoning: { max_tokens: 512, exclude: false },
    });
    const upstream = buildGeminiBody(chat);
    expect(upstream.systemInstruction).toEqual(geminiRequest.systemInstruction);
    expect(upstream.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather?' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: signature }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'Sunny' } } }] },
    ]);
    expect(upstream.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: ['string', 'null'] } } } },
        ],
      },
    ]);
    expect(upstream.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
    expect(upstream.generationConfig).toEqual({
      maxOutputTokens: 100,
      stopSequences: ['END'],
      thinkingConfig: { includeThoughts: true, thinkingBudget: 512 },
    });
  });

  it('renders a Gemini answer through chat back as the Gemini answer, signature and usage included', () => {
    const answer = {
      candidates: [
        {
          index: 0,
          finishReason: 'STOP',
          content: {
            role: 'model',
            parts: [
              { text: 'Let me look.', thought: true },
              { functionCall: { name: 'get_weather', args: { city: 'Rome' } }, thoughtSignature: signature },
            ],
          },
        },
      ],
      usageMetadata: {
        promptTokenCount: 20,
        cachedContentTokenCount: 5,
        candidatesTokenCount: 7,
        thoughtsTokenCount: 3,
        totalTokenCount: 30,
      },
    };
    const completion = normalizeGeminiResponse(answer, { excludeReasoning: false, promptText: '' });
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { reasoning: 'Let me look.' } });
    expect(completion.choices[0]!.message.reasoning_details).toContainEqual(
      expect.objectContaining({ data: signature, format: GEMINI_REASONING_FORMAT }),
    );
    expect(completion.usage).toMatchObject({ promptTokens: 20, cachedTokens: 5, completionTokens: 10, reasoningTokens: 3 });
    const rendered = geminiResponseOf(completion, completion.usage, { model: 'sim/x', responseId: 'gen-1' });
    expect(rendered).toMatchObject({
      candidates: [
        {
          finishReason: 'STOP',
          content: {
            parts: [
              { text: 'Let me look.', thought: true },
              { functionCall: { name: 'get_weather', args: { city: 'Rome' } }, thoughtSignature: signature },
            ],
          },
        },
      ],
      usageMetadata: answer.usageMetadata,
    });
  });

  it.each([
    ['safetySettings', { safetySettings: [] }],
    ['cachedContent', { cachedContent: 'cachedContents/1' }],
    ['googleSearch', { tools: [{ googleSearch: {} }] }],
    ['responseModalities', { generationConfig: { responseModalities: ['AUDIO'] } }],
  ])('refuses %s with a 400 naming it', (name, extra) => {
    const attempt = () => chatBodyFromGemini({ model: 'm', contents: [{ role: 'user', parts: [{ text: 'hi' }] }], ...extra });
    expect(attempt).toThrow(GatewayError);
    expect(attempt).toThrow(name);
  });

  it('reads Google Schema (upper-case types, nullable) as JSON Schema', () => {
    expect(jsonSchemaOf({ type: 'ARRAY', items: { type: 'INTEGER', nullable: true }, enum: ['A'] })).toEqual({
      type: 'array',
      items: { type: ['integer', 'null'] },
      enum: ['A'],
    });
  });
});
