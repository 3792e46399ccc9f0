-- Where each Check's scores were computed (issue #25): by ONNX Runtime in the web server, or by an
-- inference server over the Open Inference Protocol (Triton, KServe). With the fallback on, a
-- study's attempts can hold both; earlier attempts were all scored in process. The default stays:
-- servers of the previous release (a rolling upgrade of several replicas) insert without the
-- column, and they score in process.
alter table apt_attempt add column served_by text not null default 'in_process'
    check (served_by in ('in_process', 'inference_server'));
